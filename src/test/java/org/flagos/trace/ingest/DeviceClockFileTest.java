package org.flagos.trace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.flagos.trace.model.DeviceClockMapping;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code NAME.clock.json}: a chain of pieces written and read back exactly; damaged files refused in words. */
class DeviceClockFileTest {
    private static final long EPOCH = 1_700_000_000_000_000_000L;

    @TempDir
    Path tmp;

    @Test
    void aChainOfPiecesReadsBackExactlyAndASingleLineAsBefore() throws IOException {
        DeviceClockMapping chain = new DeviceClockMapping(5_000, EPOCH, 0.952).continuedAt(900_000, 0.9521)
                .continuedAt(1_800_000, 0.95205);
        Path file = tmp.resolve("c.clock.json");
        DeviceClockFile.write(file, chain);
        assertEquals(chain, DeviceClockFile.read(file));
        Files.writeString(file, "{\"vendor_ns\": 5000, \"epoch_ns\": " + EPOCH + ", \"rate\": 0.952}");
        assertEquals(new DeviceClockMapping(5_000, EPOCH, 0.952), DeviceClockFile.read(file));
    }

    @Test
    void damagedKnotsAreOneLineEach() throws IOException {
        String head = "{\"vendor_ns\": 5000, \"epoch_ns\": " + EPOCH + ", \"rate\": 0.95, \"knots\": ";
        String[][] cases = {
            {"[[5000, " + EPOCH + ", 0.95], [4000, " + EPOCH + ", 0.95]]", "increasing vendor time"},
            {"[[5000, " + EPOCH + ", 0.95], [6000, " + EPOCH + "]]", "rate must be a number"},
            {"[[5000, " + EPOCH + ", 0.95], [6000, " + EPOCH + ", 0.95, 1]]", "three numbers"},
            {"[[6000, " + EPOCH + ", 0.95]]", "the first of knots"},
            {"[[5000, " + EPOCH + ", 0.95], [6000, " + EPOCH + ", 7.5]]", "not a clock's"},
            {"{\"a\": 1}", "must be an array"},
            {"[5000]", "must be an array [vendor_ns"},
        };
        for (String[] c : cases) {
            Path file = tmp.resolve("bad.clock.json");
            Files.writeString(file, head + c[0] + "}");
            CaptureFormatException e = assertThrows(CaptureFormatException.class, () -> DeviceClockFile.read(file), c[0]);
            assertTrue(e.getMessage().contains(c[1]) && e.getMessage().startsWith(file.toString()), e.getMessage());
        }
    }

    @Test
    void moreKnotsThanASessionWritesAreRefusedBeforeTheyAreHeld() throws IOException {
        StringBuilder s = new StringBuilder("{\"vendor_ns\": 0, \"epoch_ns\": " + EPOCH + ", \"rate\": 1.0, \"knots\": [");
        for (int i = 0; i <= DeviceClockMapping.MAX_KNOTS; i++) {
            s.append(i == 0 ? "" : ",").append('[').append(i).append(", ").append(EPOCH + i).append(", 1.0]");
        }
        Path file = tmp.resolve("many.clock.json");
        Files.writeString(file, s.append("]}").toString());
        CaptureFormatException e = assertThrows(CaptureFormatException.class, () -> DeviceClockFile.read(file));
        assertTrue(e.getMessage().contains("more than " + DeviceClockMapping.MAX_KNOTS + " knots"), e.getMessage());
    }
}
