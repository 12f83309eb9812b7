package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The flush barriers' two settings, {@code -Dflagtrace.settleBarrierMs} and {@code -Dflagtrace.barrierBoundLagMs}:
 * whole milliseconds from 0 to one day, anything else refused in one line naming the setting when a session
 * opens (before, a huge lag overflowed when multiplied into nanoseconds and a negative one became zero silently).
 */
class SettleBarrierSettingsTest {
    @TempDir
    Path dir;

    @AfterEach
    void clear() {
        System.clearProperty(SettleBarrier.PERIOD_PROPERTY);
        System.clearProperty(SettleBarrier.BOUND_LAG_PROPERTY);
    }

    @Test
    void defaultsWhenUnset() {
        assertEquals(100, SettleBarrier.periodMs());
        assertEquals(1_000_000_000L, SettleBarrier.boundLagNs());
    }

    @Test
    void boundsAreAccepted() {
        System.setProperty(SettleBarrier.PERIOD_PROPERTY, "0");
        System.setProperty(SettleBarrier.BOUND_LAG_PROPERTY, String.valueOf(SettleBarrier.MAX_MS));
        assertEquals(0, SettleBarrier.periodMs());
        assertEquals(86_400_000_000_000L, SettleBarrier.boundLagNs());
    }

    @ParameterizedTest
    @ValueSource(strings = {"-1", "-9223372036854775808", "86400001", "9223372036854775807", "9223372036854", "1e3", "ten", ""})
    void outOfBoundsOrNotANumberIsRefusedNamingTheSetting(String value) {
        for (String property : new String[] {SettleBarrier.PERIOD_PROPERTY, SettleBarrier.BOUND_LAG_PROPERTY}) {
            System.setProperty(property, value);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> {
                        SettleBarrier.boundLagNs();
                        SettleBarrier.periodMs();
                    });
            assertEquals("-D" + property + "=" + value + ": expected whole milliseconds from 0 to 86400000 (one day)", e.getMessage());
            System.clearProperty(property);
        }
    }

    @Test
    void aSessionWithARefusedSettingDoesNotOpenAndLeavesNothingBehind() throws Exception {
        System.setProperty(SettleBarrier.BOUND_LAG_PROPERTY, "9223372036854775807");
        Path trace = dir.resolve("trace.json");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Profiler.start(SessionOptions.to(trace)));
        assertTrue(e.getMessage().startsWith("-Dflagtrace.barrierBoundLagMs=9223372036854775807: "), e.getMessage());
        try (var files = Files.list(dir)) {
            assertEquals(0, files.count(), "nothing written");
        }
        System.clearProperty(SettleBarrier.BOUND_LAG_PROPERTY);
        Profiler.start(SessionOptions.to(trace)).close(); // the slot was given back
        assertFalse(Files.notExists(trace));
    }
}
