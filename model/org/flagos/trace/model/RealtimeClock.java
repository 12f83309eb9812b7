package org.flagos.trace.model;

import java.time.Instant;

/**
 * The host's realtime clock as UNIX-epoch nanoseconds, at its own resolution: the clock a tracer
 * without a vendor clock reports. Milliseconds would do for a label but not for alignment: the
 * host clock re-check reads millisecond steps as drift.
 */
public final class RealtimeClock {
    public static long nowNs() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    private RealtimeClock() {
    }
}
