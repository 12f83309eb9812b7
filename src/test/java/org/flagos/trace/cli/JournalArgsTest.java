package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import org.flagos.trace.journal.JournalOptions;
import org.flagos.trace.journal.JournalRoll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code --journal DIR [--roll R] [--retain-bytes N] [--retain-age D]} parsed as the commands parse them. */
class JournalArgsTest {
    private static JournalArgs parsed(String... args) {
        JournalArgs journal = new JournalArgs();
        new CommandLine(journal).parseArgs(args);
        return journal;
    }

    @Test
    void noJournalIsNoOptions() {
        assertNull(parsed().options());
    }

    @Test
    void aJournalKeepsEverythingHourlyUnlessToldOtherwise() {
        JournalOptions plain = parsed("--journal", "j").options();
        assertEquals(Path.of("j"), plain.dir());
        assertEquals(JournalRoll.HOUR, plain.roll());
        assertFalse(plain.isFlightRecorder());
        JournalOptions flight = parsed("--journal", "j", "--roll", "5m", "--retain-bytes", "512M", "--retain-age", "90s")
                .options();
        assertEquals(JournalRoll.FIVE_MINUTES, flight.roll());
        assertEquals(512L << 20, flight.retainBytes());
        assertEquals(Duration.ofSeconds(90), flight.retainAge());
        assertTrue(flight.isFlightRecorder());
    }

    @Test
    void sizesTakeABinaryUnit() {
        assertEquals(1_000_000, JournalArgs.bytes("1000000"));
        assertEquals(3L << 10, JournalArgs.bytes("3K"));
        assertEquals(3L << 10, JournalArgs.bytes("3k"));
        assertEquals(2L << 30, JournalArgs.bytes("2G"));
        assertEquals(Long.MAX_VALUE / (1L << 30) << 30, JournalArgs.bytes(Long.MAX_VALUE / (1L << 30) + "G"));
    }

    @Test
    void aBadSizeIsRefusedQuotingIt() {
        for (String bad : new String[] {"0", "-1M", "", "M", "2T", "1.5G", " 1M", (Long.MAX_VALUE / (1L << 30) + 1) + "G"}) {
            assertEquals("--retain-bytes wants a positive size such as 512M or 2G, got '" + bad + "'",
                    assertThrows(UsageException.class, () -> JournalArgs.bytes(bad)).getMessage(), bad);
        }
    }

    @Test
    void retentionWithoutAJournalIsRefused() {
        for (String[] args : new String[][] {{"--roll", "1h"}, {"--retain-bytes", "1M"}, {"--retain-age", "1s"}}) {
            assertEquals("--roll and --retain-* need --journal DIR",
                    assertThrows(UsageException.class, () -> parsed(args).options()).getMessage());
        }
    }

    @Test
    void aBadRollOrAgeIsAUsageError() {
        assertEquals("roll '2h' is not one of 1s, 5m, 10m, 1h, 1d",
                assertThrows(UsageException.class, () -> parsed("--journal", "j", "--roll", "2h").options()).getMessage());
        assertEquals("'soon' is not a duration (a number with ns, us, ms, s, m or h, e.g. 30s)",
                assertThrows(UsageException.class, () -> parsed("--journal", "j", "--retain-age", "soon").options()).getMessage());
        for (String zero : new String[] {"0s", "0.1ns"}) {
            assertEquals("--retain-age wants a positive duration such as 30s or 6h, got '" + zero + "'",
                    assertThrows(UsageException.class, () -> parsed("--journal", "j", "--retain-age", zero).options())
                            .getMessage());
        }
    }
}
