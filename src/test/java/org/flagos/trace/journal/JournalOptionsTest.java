package org.flagos.trace.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link JournalOptions}: the defaults ({@code to}: hourly, keep everything), the bounds that make a flight recorder
 * (either bound alone does), each {@code with}/{@code retaining} changing only its own field, and the values refused
 * in words.
 */
class JournalOptionsTest {
    private static final Path DIR = Path.of("target", "journal-options");

    @Test
    void aPlainJournalIsHourlyAndKeepsEverything() {
        JournalOptions o = JournalOptions.to(DIR);
        assertEquals(DIR, o.dir());
        assertEquals(JournalRoll.HOUR, o.roll());
        assertEquals(0, o.retainBytes());
        assertNull(o.retainAge());
        assertFalse(o.isFlightRecorder());
    }

    @Test
    void eitherBoundAloneMakesAFlightRecorderAndEachWitherKeepsTheRest() {
        JournalOptions base = JournalOptions.to(DIR).withClock(() -> 42L);
        JournalOptions bySize = base.retainingBytes(1 << 20);
        assertTrue(bySize.isFlightRecorder());
        assertNull(bySize.retainAge());
        JournalOptions byAge = base.retainingAge(Duration.ofMinutes(10));
        assertTrue(byAge.isFlightRecorder());
        assertEquals(0, byAge.retainBytes());
        JournalOptions both = bySize.retainingAge(Duration.ofSeconds(30)).withRoll(JournalRoll.SECOND);
        assertEquals(1 << 20, both.retainBytes());
        assertEquals(Duration.ofSeconds(30), both.retainAge());
        assertEquals(JournalRoll.SECOND, both.roll());
        assertEquals(42L, both.clockMillis().getAsLong(), "the test's clock survives every wither");
        assertEquals(DIR, both.dir());
        assertFalse(both.retainingBytes(0).retainingAge(null).isFlightRecorder(), "both bounds lifted: keeps everything");
    }

    @Test
    void negativeSizesAndNonPositiveAgesAreRefusedInWords() {
        JournalOptions o = JournalOptions.to(DIR);
        assertEquals("retainBytes -1 is negative", assertThrows(IllegalArgumentException.class, () -> o.retainingBytes(-1)).getMessage());
        assertEquals("retainAge PT0S must be positive",
                assertThrows(IllegalArgumentException.class, () -> o.retainingAge(Duration.ZERO)).getMessage());
        assertEquals("retainAge PT-1S must be positive",
                assertThrows(IllegalArgumentException.class, () -> o.retainingAge(Duration.ofSeconds(-1))).getMessage());
        assertEquals("dir", assertThrows(NullPointerException.class, () -> JournalOptions.to(null)).getMessage());
        assertEquals("roll", assertThrows(NullPointerException.class, () -> o.withRoll(null)).getMessage());
        assertEquals("clockMillis", assertThrows(NullPointerException.class, () -> o.withClock(null)).getMessage());
    }
}
