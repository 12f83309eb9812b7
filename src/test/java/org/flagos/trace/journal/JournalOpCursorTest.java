package org.flagos.trace.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.ingest.OpsJsonlReader;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link JournalOpCursor}: the bundled h200-app-tiny2k capture journaled, then its ops read back one at a time are the
 * capture's ops file, op for op (name, External id, thread, start and end to the ns), each once; a second cursor reads
 * them again from the start; a closed cursor and one past the last op give null; a journal cut inside its 501st op
 * gives its first 500 ops, the last good document included; a journal whose scan found no good document gives no op.
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

    /** A journal of 1,000 ops named op-00000 ... op-00999, closed in that order. */
    private Path opsJournal() throws Exception {
        Path journal = dir.resolve("ops");
        try (JournalWriter writer = JournalWriter.open(JournalOptions.to(journal),
                new JournalSession("ops", "test", 1_000, List.of(), Map.of(), -1, false))) {
            for (int i = 0; i < 1000; i++) {
                writer.op(new HostOp(String.format("op-%05d", i), new ExternalId(i), 7, 1_000 + i * 10L, 1_000 + i * 10L + 5));
            }
            writer.stop(1_000 + 1000 * 10L);
        }
        return journal;
    }

    private static List<String> names(List<HostOp> ops) {
        return ops.stream().map(HostOp::name).toList();
    }

    @Test
    void aCutJournalsOpsEndWithItsLastWholeOp() throws Exception {
        Path journal = opsJournal();
        try (JournalReader reader = JournalReader.open(journal)) {
            reader.scan();
            try (JournalOpCursor cursor = reader.ops()) {
                List<HostOp> ops = all(cursor);
                assertEquals(1000, ops.size());
                assertEquals(new HostOp("op-00999", new ExternalId(999), 7, 10_990, 10_995), ops.get(999));
            }
        }
        Path file = JournalDamageTest.cycleFile(journal);
        long at = JournalDamageTest.find(file, "op-00500".getBytes(StandardCharsets.UTF_8));
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(at + 3);
        }
        try (JournalReader reader = JournalReader.open(journal)) {
            reader.scan();
            try (JournalOpCursor cursor = reader.ops()) {
                List<String> want = new ArrayList<>();
                for (int i = 0; i < 500; i++) {
                    want.add(String.format("op-%05d", i));
                }
                assertEquals(want, names(all(cursor)), "the scan's last good document is op-00499: it is read, nothing after it");
                assertNull(cursor.damage(), "the cut is the scan's to report, not the cursor's");
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
