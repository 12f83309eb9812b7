package org.flagos.trace.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.ingest.OpsJsonlReader;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link JournalOpCursor}: the bundled h200-app-tiny2k capture journaled, then its ops read back one at a time are the
 * capture's ops file, op for op (name, External id, thread, start and end to the ns), each once; a second cursor reads
 * them again from the start; a closed cursor and one past the last op give null; a journal whose scan found no good
 * document gives no op.
 */
class JournalOpCursorTest {
    @TempDir
    Path dir;

    private static List<HostOp> all(JournalOpCursor cursor) {
        List<HostOp> ops = new ArrayList<>();
        for (HostOp op; (op = cursor.next()) != null; ) {
            ops.add(op);
        }
        return ops;
    }

    private static String key(HostOp op) {
        return op.endNs() + " " + op.startNs() + " " + op.externalId().value() + " " + op.thread() + " " + op.name();
    }

    @Test
    void theJournalsOpsAreTheCapturesOps() {
        String capture = "h200-app-tiny2k";
        JournalFixtures.journal(capture, dir);
        List<HostOp> file = OpsJsonlReader.read(Captures.ops(capture)).ops();
        try (JournalReader reader = JournalReader.open(dir)) {
            reader.scan();
            List<HostOp> read;
            try (JournalOpCursor cursor = reader.ops()) {
                read = all(cursor);
                assertNull(cursor.next(), "past the last op: null again");
                assertNull(cursor.damage());
            }
            assertEquals(file.size(), read.size(), "every op once");
            assertTrue(read.size() > 2000, "" + read.size());
            List<String> want = new ArrayList<>(file.stream().map(JournalOpCursorTest::key).toList());
            List<String> got = new ArrayList<>(read.stream().map(JournalOpCursorTest::key).toList());
            want.sort(Comparator.naturalOrder());
            got.sort(Comparator.naturalOrder());
            assertEquals(want, got, "the same ops, to the ns");
            for (int i = 1; i < read.size(); i++) {
                assertTrue(read.get(i - 1).endNs() <= read.get(i).endNs() || read.get(i - 1).thread() != read.get(i).thread(),
                        "a thread's ops in the order they closed: " + read.get(i - 1) + " then " + read.get(i));
            }

            try (JournalOpCursor again = reader.ops()) {
                assertEquals(read.get(0), again.next(), "a cursor of its own, from the first op");
                again.close();
                assertNull(again.next(), "closed: no more ops");
            }
        }
    }

    @Test
    void noGoodDocumentNoOps() throws Exception {
        JournalFixtures.journal("h200-app-tiny2k", dir.resolve("j"));
        try (JournalReader reader = JournalReader.open(dir.resolve("j"))) {
            reader.scan();
            try (JournalOpCursor cursor = new JournalOpCursor(dir, null, Long.MIN_VALUE)) {
                assertNull(cursor.next(), "the scan found nothing good: the tailer is not even asked");
                assertNull(cursor.damage());
            }
        }
        assertTrue(Files.isDirectory(dir.resolve("j")));
    }
}
