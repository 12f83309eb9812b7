package org.flagos.trace.journal;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Where and how a journal is written.
 *
 * @param dir          the queue directory; must be empty or absent
 * @param roll         the span of one cycle (one file)
 * @param retainBytes  a flight recorder's size bound: the oldest cycles are deleted while the
 *                     journal holds more (the cycle being written is never deleted); 0 = no bound
 * @param retainAge    a flight recorder's age bound: cycles that ended longer ago are deleted;
 *                     null = no bound
 * @param clockMillis  the wall clock cycles are cut by (ms since the epoch); tests pass their own
 */
public record JournalOptions(Path dir, JournalRoll roll, long retainBytes, Duration retainAge, LongSupplier clockMillis) {
    public JournalOptions {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(roll, "roll");
        Objects.requireNonNull(clockMillis, "clockMillis");
        if (retainBytes < 0) {
            throw new IllegalArgumentException("retainBytes " + retainBytes + " is negative");
        }
        if (retainAge != null && (retainAge.isNegative() || retainAge.isZero())) {
            throw new IllegalArgumentException("retainAge " + retainAge + " must be positive");
        }
    }

    /** A journal in {@code dir} that keeps everything, one file per hour. */
    public static JournalOptions to(Path dir) {
        return new JournalOptions(dir, JournalRoll.HOUR, 0, null, System::currentTimeMillis);
    }

    public JournalOptions withRoll(JournalRoll r) {
        return new JournalOptions(dir, r, retainBytes, retainAge, clockMillis);
    }

    /** A flight recorder: keeps at most about {@code bytes} (whole cycles, plus the one being written). */
    public JournalOptions retainingBytes(long bytes) {
        return new JournalOptions(dir, roll, bytes, retainAge, clockMillis);
    }

    /** A flight recorder: keeps the cycles that ended less than {@code age} ago (and the one being written). */
    public JournalOptions retainingAge(Duration age) {
        return new JournalOptions(dir, roll, retainBytes, age, clockMillis);
    }

    public JournalOptions withClock(LongSupplier millis) {
        return new JournalOptions(dir, roll, retainBytes, retainAge, millis);
    }

    /** True when old cycles are deleted. */
    public boolean isFlightRecorder() {
        return retainBytes > 0 || retainAge != null;
    }
}
