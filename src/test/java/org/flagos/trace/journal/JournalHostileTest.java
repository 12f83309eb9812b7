package org.flagos.trace.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.flagos.trace.ingest.CaptureFormatException;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.model.ExternalId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Journals damaged in the ways issue 14 found: an op document without its name, an op that ends
 * before it starts, bytes of garbage after the last document, an empty cycle file, a journal
 * without its end. Each export keeps what is good, says what is not in words, and never throws.
 */
class JournalHostileTest {
    private static final int OPS = 900;

    @TempDir
    Path tmp;

    /** A journal of {@code OPS} ops op-00000 ...; {@code bad} (may be null) is journaled as op 450. */
    private Path journal(HostOp bad) throws IOException {
        Path dir = tmp.resolve("ops");
        try (JournalWriter writer = JournalWriter.open(JournalOptions.to(dir), session())) {
            for (int i = 0; i < OPS; i++) {
                writer.op(i == 450 && bad != null ? bad : op(i));
            }
            writer.stop(1_000 + OPS * 10L);
        }
        return dir;
    }

    private static JournalSession session() {
        return new JournalSession("ops", "test", 1_000, List.of(), Map.of(), -1, false);
    }

    private static HostOp op(int i) {
        return new HostOp(String.format("op-%05d", i), new ExternalId(i), 7, 1_000 + i * 10L, 1_000 + i * 10L + 5);
    }

    @Test
    void anOpDocumentWithoutItsNameIsSkippedCountedAndEverythingElseKept() throws IOException {
        Path dir = journal(new HostOp(null, new ExternalId(450), 7, 5_500, 5_505));

        JournalFixtures.Export export = JournalFixtures.export(dir, JournalWindow.ALL);

        assertEquals(allBut(450), JournalDamageTest.opNames(export.trace()));
        assertEquals(1, export.result().facts().invalidOps());
        String warning = onlyWarning(export);
        assertTrue(warning.contains("1 op document was skipped") && warning.contains("has no name"), warning);
        assertTrue(notes(export.trace()).contains(warning), "the trace's notes say it too: " + notes(export.trace()));
    }

    @Test
    void anOpThatEndsBeforeItStartsIsSkippedCountedAndNeverWrittenWithANegativeDuration() throws IOException {
        Path dir = journal(new HostOp("op-00450", new ExternalId(450), 7, 5_505, 5_500));

        JournalFixtures.Export export = JournalFixtures.export(dir, JournalWindow.ALL);

        for (JsonNode e : JournalFixtures.complete(export.trace())) {
            assertTrue(e.path("dur").asDouble() >= 0, "no negative duration: " + e);
        }
        assertEquals(allBut(450), JournalDamageTest.opNames(export.trace()));
        assertEquals(1, export.result().facts().invalidOps());
        String warning = onlyWarning(export);
        assertTrue(warning.contains("ends 5 ns before it starts"), warning);
    }

    @Test
    void garbageAfterTheLastDocumentIsDamageInWordsAndEveryDocumentIsKept() throws IOException {
        Path dir = journal(null);
        Path file = JournalDamageTest.cycleFile(dir);
        long end = endOfWrittenBytes(file);
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(end);
            f.write(new byte[] {0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a});
        }

        JournalFixtures.Export export = JournalFixtures.export(dir, JournalWindow.ALL);

        String damage = export.result().replay().truncation();
        assertNotNull(damage, "the garbage is reported");
        assertTrue(damage.contains(file.getFileName().toString()) && damage.contains("garbage"), damage);
        assertWords(damage);
        assertEquals(allBut(-1), JournalDamageTest.opNames(export.trace()), "every document before the garbage");
        assertTrue(export.result().facts().ended());
    }

    @Test
    void anEmptyLastCycleFileIsReportedAndTheCyclesBeforeItAreKept() throws IOException {
        Path dir = tmp.resolve("cycles");
        AtomicLong now = new AtomicLong(1_800_000_000_000L);
        try (JournalWriter writer = JournalWriter.open(JournalOptions.to(dir).withRoll(JournalRoll.SECOND).withClock(now::get),
                session())) {
            for (int i = 0; i < OPS; i++) {
                if (i > 0 && i % 300 == 0) {
                    now.addAndGet(1_000); // three cycles of 300 ops
                }
                writer.op(op(i));
            }
            writer.stop(1_000 + OPS * 10L);
        }
        List<Path> cycles = cycleFiles(dir);
        assertEquals(3, cycles.size(), cycles.toString());
        Path last = cycles.get(2);
        Files.write(last, new byte[0]);

        JournalFixtures.Export export = JournalFixtures.export(dir, JournalWindow.ALL);

        String damage = export.result().replay().truncation();
        assertNotNull(damage, "the lost cycle is reported");
        assertTrue(damage.contains(last.getFileName().toString()) && damage.contains("empty"), damage);
        assertEquals(names(0, 600), JournalDamageTest.opNames(export.trace()));
        assertFalse(export.result().facts().ended(), "the stop document was in the lost cycle");
    }

    @Test
    void aJournalWhoseOnlyCycleFileIsEmptyIsRefusedNamingTheFile() throws IOException {
        Path dir = journal(null);
        Path file = JournalDamageTest.cycleFile(dir);
        Files.write(file, new byte[0]);

        CaptureFormatException e = assertThrows(CaptureFormatException.class, () -> JournalFixtures.export(dir, JournalWindow.ALL));

        assertTrue(e.getMessage().contains(file.getFileName().toString()) && e.getMessage().contains("empty"), e.getMessage());
        assertWords(e.getMessage());
    }

    @Test
    void aClosedJournalHasItsEndAndOneWithoutItSaysTheCaptureWasInterrupted() throws IOException {
        Path closed = tmp.resolve("closed");
        try (JournalWriter writer = JournalWriter.open(JournalOptions.to(closed), session())) {
            writer.op(op(0)); // closed without stop(): close() still ends the journal
        }
        JournalFixtures.Export ok = JournalFixtures.export(closed, JournalWindow.ALL);
        assertTrue(ok.result().facts().ended());
        assertEquals(List.of(), ok.result().warnings());
        assertNull(ok.result().replay().truncation());

        Path cut = tmp.resolve("cut");
        JournalWriter writer = JournalWriter.open(JournalOptions.to(cut), session());
        writer.op(op(0));
        // not closed, as after kill -9: the document is in the mapped file, the journal has no end
        JournalFixtures.Export interrupted = JournalFixtures.export(cut, JournalWindow.ALL);
        writer.close();

        assertFalse(interrupted.result().facts().ended());
        String warning = onlyWarning(interrupted);
        assertTrue(warning.contains("interrupted"), warning);
        assertTrue(notes(interrupted.trace()).contains(warning), notes(interrupted.trace()));
        assertEquals(List.of("op-00000"), JournalDamageTest.opNames(interrupted.trace()));
    }

    @Test
    void aDamagedDocumentIsDescribedInWordsWithoutJavaClassNames() throws IOException {
        Path dir = journal(null);
        Path file = JournalDamageTest.cycleFile(dir);
        long at = JournalDamageTest.find(file, "op-00450".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(at - 8);
            f.write(new byte[] {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1});
        }

        JournalFixtures.Export export = JournalFixtures.export(dir, JournalWindow.ALL);

        String damage = export.result().replay().truncation();
        assertNotNull(damage);
        assertWords(damage);
        assertEquals(names(0, 450), JournalDamageTest.opNames(export.trace()));
    }

    static void assertWords(String message) {
        for (String java : List.of("java.", "Exception", "Error:", "openhft", "InternalError")) {
            assertFalse(message.contains(java), "no Java class name in '" + message + "'");
        }
    }

    private static String onlyWarning(JournalFixtures.Export export) {
        List<String> warnings = export.result().warnings();
        assertEquals(1, warnings.size(), warnings.toString());
        assertWords(warnings.get(0));
        return warnings.get(0);
    }

    static String notes(JsonNode trace) {
        return trace.path("flagtrace").path("notes").toString();
    }

    private static List<String> allBut(int skipped) {
        List<String> names = names(0, OPS);
        if (skipped >= 0) {
            names.remove(String.format("op-%05d", skipped));
        }
        return names;
    }

    private static List<String> names(int from, int to) {
        List<String> names = new ArrayList<>();
        for (int i = from; i < to; i++) {
            names.add(String.format("op-%05d", i));
        }
        return names;
    }

    /** The first 4-byte boundary after the file's last nonzero byte: where the next document would go. */
    static long endOfWrittenBytes(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        int end = bytes.length;
        while (end > 0 && bytes[end - 1] == 0) {
            end--;
        }
        return (end + 3L) & ~3L;
    }

    static List<Path> cycleFiles(Path dir) throws IOException {
        try (var files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".cq4")).sorted().toList();
        }
    }
}
