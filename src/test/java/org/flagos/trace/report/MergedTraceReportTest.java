package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.flagos.trace.merge.ClockChoice;
import org.flagos.trace.merge.TraceMerge;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A merged trace reads as flagtrace's own: its report names its devices and shows the ranks' summed
 * accounting (it used to say "no flagtrace block: it was not written by flagtrace" and "devices: not
 * named in the trace"), and its stream rows and memory chart name one device the same way (they said
 * "device 1002 stream 13" and "device 0").
 */
class MergedTraceReportTest {
    @TempDir
    Path dir;

    private Path rank(int rank) throws Exception {
        String json = "{\"deviceProperties\":[{\"id\":0,\"name\":\"H200 " + rank + "\"}],\"distributedInfo\":{\"rank\":" + rank + "},"
                + "\"baseTimeNanoseconds\":1000000000,\"traceEvents\":["
                + "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":4242,\"tid\":1,\"ts\":10,\"dur\":5,\"args\":{\"External id\":3}},"
                + "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":11,\"dur\":2,\"args\":{\"External id\":3,\"device\":0,\"stream\":7}},"
                + "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":4242,\"tid\":1,\"ts\":12,\"s\":\"t\","
                + "\"args\":{\"Device Type\":1,\"Device Id\":0,\"Total Allocated\":1024,\"Bytes\":1024}}],"
                + "\"flagtrace\":{\"events\":3,\"invalid_records\":" + rank + ",\"notes\":[\"note " + rank + "\"]}}";
        return Files.writeString(dir.resolve("rank" + rank + ".json"), json);
    }

    @Test
    void aMergedTracesReportNamesItsDevicesAndItsLosses() throws Exception {
        Path merged = dir.resolve("merged.json");
        try (OutputStream out = Files.newOutputStream(merged)) {
            TraceMerge.run(List.of(rank(0), rank(1)), out, ClockChoice.AUTO, true);
        }
        TraceFile trace = TraceFile.read(merged);
        assertTrue(trace.merged());
        assertEquals(List.of("H200 0", "H200 1"), trace.devices());
        assertEquals(1L, trace.accounting().get("invalid_records"));
        String page = HtmlReport.render("merged", trace, trace.averages());
        assertFalse(page.contains("not named in the trace"), "devices named");
        assertFalse(page.contains("it was not written by flagtrace"), "the accounting kept");
        assertTrue(page.contains("devices: H200 0, H200 1"), page);
        assertTrue(page.contains(">rank 0 device 0 stream 7<"), "stream rows name the rank and the device's own index");
        assertTrue(page.contains(">rank 1 device 0 stream 7<"), page);
        assertTrue(page.contains(">rank 0 device 0<"), "the memory chart names the same device");
        assertTrue(page.contains(">rank 1 device 0<"), "each rank's memory its own series");
        assertTrue(page.contains("rank 0: note 0"), page);
    }
}
