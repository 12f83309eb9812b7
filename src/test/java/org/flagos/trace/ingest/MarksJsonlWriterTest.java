package org.flagos.trace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link MarksJsonlWriter}: one line per mark, {@code domain} only when given; the file appears only when finished. */
class MarksJsonlWriterTest {
    @Test
    void eachMarkIsOneLineAndTheFileAppearsWhenFinished(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("x.marks.jsonl");
        try (MarksJsonlWriter w = new MarksJsonlWriter(file)) {
            w.mark(new HostMark("tick", null, 7, 8, 100));
            w.mark(new HostMark("q\"\u00b5\n", "app", 7, 9, 101));
            assertFalse(Files.exists(file), "not under its name before it is finished");
            w.finish();
        }
        assertEquals(List.of("{\"name\":\"tick\",\"pid\":7,\"thread\":8,\"ts\":100}",
                "{\"name\":\"q\\\"\u00b5\\n\",\"domain\":\"app\",\"pid\":7,\"thread\":9,\"ts\":101}"),
                Files.readAllLines(file, StandardCharsets.UTF_8));
        assertFalse(Files.exists(dir.resolve("x.marks.jsonl.partial")));
    }

    @Test
    void aWriterClosedUnfinishedLeavesNoFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("y.marks.jsonl");
        try (MarksJsonlWriter w = new MarksJsonlWriter(file)) {
            w.mark(new HostMark("tick", null, 1, 1, 1));
        }
        assertEquals(List.of(), List.of(dir.toFile().list()));
    }
}
