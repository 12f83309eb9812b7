package org.flagos.trace.session;

import java.util.function.LongSupplier;
import org.flagos.trace.model.BracketedReading;
import org.flagos.trace.model.ClockAlignment;

/**
 * UNIX-epoch nanoseconds in the vendor's clock domain, cheap enough to read twice per op: a
 * monotonic host clock ({@link System#nanoTime()}) plus an offset to the tracer's own timestamp.
 * Reading a different clock (MONOTONIC against epoch) would put host ops decades away from device
 * records and the window would discard everything.
 *
 * <p>The offset is taken the way kineto calibrates its approximate clock: many paired samples
 * (host, vendor, host), the one with the tightest round trip wins, and half that round trip bounds
 * the error. One sample is not enough: the first call into a vendor library of a process is slow
 * (tens of microseconds through JNI), and a single sample taken across it put the live H200
 * capture's ops up to 26 µs late, so that 170 of 358 runtime calls appeared to start before the op
 * that issued them. {@link #recheck()} measures again at stop: the difference is the drift.
 */
final class HostClock {
    /** Paired samples per measurement; about 0.1 ms in all once the calls are compiled. */
    static final int SAMPLES = 2_000;
    /** Calls before sampling, so class loading and JNI linking fall outside the samples. */
    static final int WARMUP = 500;

    private final LongSupplier host;
    private final LongSupplier vendor;
    private final long offset;
    private final long bound;
    private final long calibratedAtHost;

    HostClock(LongSupplier vendor) {
        this(System::nanoTime, vendor);
    }

    HostClock(LongSupplier host, LongSupplier vendor) {
        this.host = host;
        this.vendor = vendor;
        long[] tightest = tightest(host, vendor);
        this.offset = tightest[0];
        this.bound = tightest[1];
        this.calibratedAtHost = tightest[2];
    }

    /** Now, on the vendor's clock. */
    long now() {
        return host.getAsLong() + offset;
    }

    /** A reading of the host clock ({@link System#nanoTime()} outside tests) on the vendor's clock. */
    long at(long hostNs) {
        return hostNs + offset;
    }

    /** Half the tightest round trip at calibration: how far {@link #now()} can be off. */
    long boundNs() {
        return bound;
    }

    /** Measures the offset again; the alignment compares it with the one {@link #now()} uses. */
    ClockAlignment recheck() {
        long[] again = tightest(host, vendor);
        return new ClockAlignment(SAMPLES, bound, again[1], again[0] - offset, again[2] - calibratedAtHost);
    }

    /** {offset, bound, host time} of the tightest of {@link #SAMPLES} paired samples. */
    private static long[] tightest(LongSupplier host, LongSupplier vendor) {
        for (int i = 0; i < WARMUP; i++) {
            vendor.getAsLong();
            host.getAsLong();
        }
        BracketedReading r = BracketedReading.tightest(host, vendor, SAMPLES);
        return new long[] {r.innerNs() - r.midNs(), r.boundNs(), r.midNs()};
    }
}
