package org.flagos.trace.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A journal's files are sized by its mapped blocks, not by what it holds: with Chronicle's default
 * 64 MiB blocks, the journal of an 18 KB capture was 80 MiB in apparent size (issue 14). Buffers
 * larger than a block's overlap are still journaled, in parts, and replay whole.
 */
class JournalSizeTest {
    @TempDir
    Path tmp;

    @Test
    void theJournalOfASmallCaptureIsSmallInApparentSize() throws IOException {
        Path dir = tmp.resolve("journal");
        JournalFixtures.journal("h200-app", dir);

        long apparent = apparentSize(dir);
        assertTrue(apparent <= 3L << 20, "apparent size " + apparent + " bytes (was 84,021,248)");
    }

    @Test
    void aBufferOfEightMiBIsJournaledInPartsAndExportsAsTheCapturesReplay() {
        String capture = "h200-tiny30k"; // its first buffer is 8 MiB, four times a block's overlap
        Path dir = tmp.resolve("journal");
        JournalFixtures.journal(capture, dir);

        JournalFixtures.Export exported = JournalFixtures.export(dir, JournalWindow.ALL);

        assertNull(exported.result().replay().truncation());
        assertEquals(2, exported.result().facts().buffers());
        assertEquals(TraceJson.replay(JournalFixtures.request(capture)).result().events(), exported.result().replay().events());
    }

    private static long apparentSize(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            long total = 0;
            for (Path p : files.toList()) {
                total += Files.size(p);
            }
            return total;
        }
    }
}
