package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.flagos.trace.ingest.CaptureFormatException;
import org.flagos.trace.ingest.DevicePropertiesFile;
import org.flagos.trace.stages.TraceHeader;
import org.junit.jupiter.api.Test;

/**
 * {@link Devices}: {@code --device-properties h200} is the H200 the bundled captures were made on (the properties the
 * device run wrote beside its capture), a file or a torch trace reads as {@link DevicePropertiesFile} reads it, a name
 * that is neither is a usage error naming the bundled ones; {@code --metadata} pairs keep their order, split at the
 * first '=', and refuse an empty key and every key the trace writes itself.
 */
class DevicesTest {
    private static final Path RANK0 = Path.of("src/test/resources/captures/h200-ranks/rank0.devices.json");

    @Test
    void theBundledH200IsTheDeviceTheCapturesWereMadeOn() throws Exception {
        assertEquals(List.of(), Devices.read(null));
        assertEquals(DevicePropertiesFile.read(RANK0), Devices.read("h200"), "the bundled set equals what the H200 run wrote");
        assertEquals(DevicePropertiesFile.read(RANK0), Devices.read(RANK0.toString()));
        Path torch = Path.of("src/test/resources/torch-reference/torch_trace.json");
        assertEquals(Devices.read("h200"), Devices.read(torch.toString()), "torch's trace from the same machine works as it is");
        assertNull(Devices.file(null));
        assertNull(Devices.file("h200"));
        assertEquals(RANK0, Devices.file(RANK0.toString()));
    }

    @Test
    void aNameThatIsNeitherAFileNorBundledIsAUsageError() {
        UsageException e = assertThrows(UsageException.class, () -> Devices.read("a100"));
        assertTrue(e.getMessage().startsWith("--device-properties a100: no such file, and no bundled device of that name; the bundled ones are h200,"),
                e.getMessage());
        assertThrows(UsageException.class, () -> Devices.read("H200"), "names are exact");
        CaptureFormatException bad = assertThrows(CaptureFormatException.class, () -> Devices.read("src/test/resources/captures"));
        assertTrue(bad.getMessage().contains("is a directory"), "an existing path that is no file is the file's fault: " + bad.getMessage());
    }

    @Test
    void metadataPairsKeepTheirOrderAndSplitAtTheFirstEquals() {
        Map<String, String> m = Devices.metadata(List.of("run=7", "cmd=a=b", "empty=", "run=8"));
        assertEquals(List.of("run", "cmd", "empty"), List.copyOf(m.keySet()));
        assertEquals("8", m.get("run"), "the last of a key given twice");
        assertEquals("a=b", m.get("cmd"));
        assertEquals("", m.get("empty"));
        assertEquals(Map.of(), Devices.metadata(List.of()));
        for (String bad : List.of("=x", "novalue", "")) {
            assertEquals("--metadata wants KEY=VALUE, got '" + bad + "'",
                    assertThrows(UsageException.class, () -> Devices.metadata(List.of("ok=1", bad))).getMessage());
        }
        for (String reserved : TraceHeader.RESERVED_KEYS) {
            assertEquals("--metadata cannot set the reserved key " + reserved,
                    assertThrows(UsageException.class, () -> Devices.metadata(List.of(reserved + "=x"))).getMessage());
        }
        assertTrue(TraceHeader.RESERVED_KEYS.containsAll(List.of("traceEvents", "deviceProperties", "baseTimeNanoseconds", "flagtrace")));
    }
}
