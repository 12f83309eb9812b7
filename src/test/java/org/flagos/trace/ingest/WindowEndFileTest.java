package org.flagos.trace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How a run's window ended, written and read back in order; anything but one object of distinct strings is refused in one line. */
class WindowEndFileTest {
    @TempDir
    Path dir;

    @Test
    void theFieldsComeBackInTheirOrder() throws Exception {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("flagtrace_run_end", "the process ended without a stop (the stream broke: \"reset\"): every buffer it handed over is here");
        fields.put("flagtrace_run_buffers", "12");
        fields.put("flagtrace_run_window", "3");
        fields.put("flagtrace_run_capture_range", "nvtx:train\tstep");
        Path file = dir.resolve("flagtrace-7.window-end.json");
        WindowEndFile.write(file, fields);
        Map<String, String> read = WindowEndFile.read(file);
        assertEquals(fields, read);
        assertEquals(List.copyOf(fields.keySet()), List.copyOf(read.keySet()), "in the order written: the trace's order");
    }

    @Test
    void anythingButOneObjectOfDistinctStringsIsRefused() throws Exception {
        for (String text : List.of("", "[]", "{\"a\":1}", "{\"a\":\"x\",\"a\":\"y\"}", "{\"a\":\"x\"} {}", "{\"a\":\"x\"")) {
            Path file = dir.resolve("bad.window-end.json");
            Files.writeString(file, text);
            CaptureFormatException e = assertThrows(CaptureFormatException.class, () -> WindowEndFile.read(file), text);
            assertTrue(e.getMessage().startsWith(file.toString()), e.getMessage());
            assertEquals(1, e.getMessage().lines().count(), e.getMessage());
        }
        StringBuilder many = new StringBuilder("{");
        for (int i = 0; i <= WindowEndFile.MAX_FIELDS; i++) {
            many.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":\"v\"");
        }
        Path file = dir.resolve("many.window-end.json");
        Files.writeString(file, many.append('}'));
        assertTrue(assertThrows(CaptureFormatException.class, () -> WindowEndFile.read(file)).getMessage().contains("more than"));
    }
}
