package org.flagos.trace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link MarksJsonlReader}: reads back what {@link MarksJsonlWriter} wrote, in file order, and stops at the first bad
 * line with its number and what was wrong.
 */
class MarksJsonlReaderTest {
    @Test
    void readsBackWhatTheWriterWrote(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("x.marks.jsonl");
        List<HostMark> written = List.of(new HostMark("tick", null, 7, 8, 100), new HostMark("", "app", 7, 9, 99),
                new HostMark("L".repeat(1 << 16), null, 7, 8, 1L << 62));
        try (MarksJsonlWriter w = new MarksJsonlWriter(file)) {
            for (HostMark m : written) {
                w.mark(m);
            }
            w.finish();
        }
        List<HostMark> read = new ArrayList<>();
        try (MarksJsonlReader r = MarksJsonlReader.open(file)) {
            for (HostMark m; (m = r.next()) != null; ) {
                read.add(m);
            }
            assertNull(r.next());
        }
        assertEquals(written, read);
    }

    @Test
    void theFirstBadLineStopsTheReadWithItsNumber(@TempDir Path dir) throws Exception {
        Map<String, String> bad = Map.of(
                "[1]", "line 2: not a JSON object",
                "{\"name\":\"a\",\"pid\":1,\"thread\":2}", "line 2: a mark needs name, pid, thread and ts",
                "{\"name\":3,\"pid\":1,\"thread\":2,\"ts\":4}", "line 2: name must be a string",
                "{\"name\":\"a\",\"pid\":1,\"thread\":-2,\"ts\":4}", "line 2: thread must be a non-negative integer",
                "{\"name\":\"a\",\"pid\":1,\"thread\":2,\"ts\":4.5}", "line 2: ts must be a non-negative integer",
                "{\"name\":\"a\",\"pid\":1,\"thread\":2,\"ts\":4} {}", "line 2: content after the object",
                "{\"name\":\"a\"", "line 2: not JSON");
        for (Map.Entry<String, String> b : bad.entrySet()) {
            Path file = dir.resolve("bad.marks.jsonl");
            Files.writeString(file, "{\"name\":\"ok\",\"pid\":1,\"thread\":2,\"ts\":3}\n" + b.getKey() + "\n", StandardCharsets.UTF_8);
            try (MarksJsonlReader r = MarksJsonlReader.open(file)) {
                assertEquals(new HostMark("ok", null, 1, 2, 3), r.next());
                CaptureFormatException e = assertThrows(CaptureFormatException.class, r::next, b.getKey());
                assertEquals(true, e.getMessage().startsWith(file + ": " + b.getValue()), e.getMessage());
            }
        }
    }

    @Test
    void aLaterWritersFieldIsSkipped(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("z.marks.jsonl");
        Files.writeString(file, "{\"name\":\"a\",\"color\":{\"argb\":[1,2]},\"pid\":1,\"thread\":2,\"ts\":3}\n\n", StandardCharsets.UTF_8);
        try (MarksJsonlReader r = MarksJsonlReader.open(file)) {
            assertEquals(new HostMark("a", null, 1, 2, 3), r.next());
            assertNull(r.next(), "a blank line is no mark");
        }
    }
}
