package org.flagos.trace.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.model.ExternalId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A flight recorder on a clock the test moves: one-second cycles, old ones deleted past the bound,
 * and a window exported while the recorder keeps appending.
 */
class FlightRecorderTest {
    private static final long BASE_MS = 1_800_000_000_000L;
    private static final int OPS_PER_SECOND = 100;

    @TempDir
    Path tmp;

    private final AtomicLong nowMs = new AtomicLong(BASE_MS);

    @Test
    void ageRetentionKeepsTheRecentCyclesAndTheyExportWhileRecordingGoesOn() throws IOException {
        Path dir = tmp.resolve("recorder");
        JournalOptions options = JournalOptions.to(dir).withRoll(JournalRoll.SECOND).retainingAge(Duration.ofSeconds(3))
                .withClock(nowMs::get);
        try (JournalWriter writer = JournalWriter.open(options, session())) {
            writer.kernelName(0x1234, "kernel named at the start");
            for (int second = 0; second < 10; second++) {
                record(writer, second);
            }
            // cycles 0..5 ended 3 s or more before second 9: deleted; 6, 7, 8 and the current 9 kept
            assertEquals(4, cycleFiles(dir));
            assertEquals(6, writer.deletedCycles());

            JournalFixtures.Export export = JournalFixtures.export(dir, JournalWindow.ALL);

            assertEquals(expectedOps(6, 10), JournalDamageTest.opNames(export.trace()));
            JournalFacts facts = export.result().facts();
            assertTrue(facts.firstSeq() > 0, "older documents are gone");
            assertEquals("kernel named at the start", facts.names().get(0x1234L), "each cycle repeats the names");
            assertEquals(BASE_MS * 1_000_000L, facts.startNs(), "and the session's start");

            // the recorder goes on; a window of what is retained now
            record(writer, 10);
            long from = (BASE_MS + 7_000) * 1_000_000L;
            long to = (BASE_MS + 9_000) * 1_000_000L;
            JournalFixtures.Export window = JournalFixtures.export(dir, JournalWindow.of(Long.toString(from), Long.toString(to), null));
            assertEquals(expectedOps(7, 9), JournalDamageTest.opNames(window.trace()));
        }
    }

    @Test
    void sizeRetentionBoundsTheJournal() throws IOException {
        Path dir = tmp.resolve("recorder");
        JournalOptions options = JournalOptions.to(dir).withRoll(JournalRoll.SECOND).retainingBytes(40_000).withClock(nowMs::get);
        try (JournalWriter writer = JournalWriter.open(options, session())) {
            for (int second = 0; second < 20; second++) {
                record(writer, second);
            }
            assertTrue(writer.deletedCycles() >= 5, writer.deletedCycles() + " cycles deleted");
            int kept = cycleFiles(dir);
            assertTrue(kept >= 2 && kept <= 15, kept + " cycles kept");
            JournalFixtures.Export export = JournalFixtures.export(dir, JournalWindow.ALL);
            int first = 20 - kept;
            assertEquals(expectedOps(first, 20), JournalDamageTest.opNames(export.trace()));
        }
    }

    private JournalSession session() {
        return new JournalSession("recorder", "test", BASE_MS * 1_000_000L, List.of(), Map.of(), -1, true);
    }

    /** Moves the clock to {@code second} and records that second's ops. */
    private void record(JournalWriter writer, int second) {
        nowMs.set(BASE_MS + second * 1_000L);
        for (int i = 0; i < OPS_PER_SECOND; i++) {
            long startNs = (BASE_MS + second * 1_000L) * 1_000_000L + i * 1_000_000L;
            writer.op(new HostOp(name(second, i), new ExternalId(second * OPS_PER_SECOND + i), 1, startNs, startNs + 500_000));
        }
    }

    private static String name(int second, int i) {
        return String.format("s%02d-op%03d", second, i);
    }

    private static List<String> expectedOps(int fromSecond, int toSecond) {
        List<String> names = new ArrayList<>();
        for (int s = fromSecond; s < toSecond; s++) {
            for (int i = 0; i < OPS_PER_SECOND; i++) {
                names.add(name(s, i));
            }
        }
        return names;
    }

    private static int cycleFiles(Path dir) throws IOException {
        try (var files = Files.list(dir)) {
            return (int) files.filter(p -> p.toString().endsWith(".cq4")).count();
        }
    }
}
