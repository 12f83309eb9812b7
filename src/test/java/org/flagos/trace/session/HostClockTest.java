package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.LongSupplier;
import org.flagos.trace.model.ClockAlignment;
import org.junit.jupiter.api.Test;

/**
 * The host clock against a simulated vendor clock whose reads take time: the tightest round trip
 * wins, the error stays within the reported bound, and drift between start and stop is measured.
 */
class HostClockTest {
    /** A host clock that advances by a fixed step per read, and a vendor clock read on it. */
    private static final class SimulatedClocks {
        long now;
        long vendorOffset = 1_795_000_000_000_000_000L;
        long driftPerRead;
        int reads;

        final LongSupplier host = () -> now += 20;

        /** The first read is slow (JNI linking), later ones take 40 ns or, every 7th, 3 µs. */
        final LongSupplier vendor = () -> {
            reads++;
            long before = now;
            now += reads == 1 ? 26_000 : reads % 7 == 0 ? 3_000 : 40;
            vendorOffset += driftPerRead;
            // the vendor stamps its time a third of the way through the call
            return before + (now - before) / 3 + vendorOffset;
        };
    }

    @Test
    void theTightestOfManySamplesWinsAndItsHalfRoundTripBoundsTheError() {
        SimulatedClocks c = new SimulatedClocks();
        HostClock clock = new HostClock(c.host, c.vendor);
        long trueNow = c.now + 20 + c.vendorOffset; // what the vendor would read at the next host read
        long error = Math.abs(clock.now() - trueNow);
        assertTrue(clock.boundNs() <= 50, "bound from the 40 ns call plus the host reads, got " + clock.boundNs());
        assertTrue(error <= clock.boundNs(), "error " + error + " within bound " + clock.boundNs());
    }

    @Test
    void oneSampleAcrossTheSlowFirstCallWouldHaveBeenMicrosecondsOff() {
        SimulatedClocks c = new SimulatedClocks();
        long before = c.host.getAsLong();
        long vendor = c.vendor.getAsLong();
        long after = c.host.getAsLong();
        long singleSampleOffset = vendor - (before + (after - before) / 2);
        assertTrue(Math.abs(singleSampleOffset - c.vendorOffset) > 4_000, "the old single sample erred by microseconds");
    }

    @Test
    void aSteadyVendorClockShowsNoDrift() {
        SimulatedClocks c = new SimulatedClocks();
        HostClock clock = new HostClock(c.host, c.vendor);
        c.now += 1_000_000_000L;
        ClockAlignment a = clock.recheck();
        assertTrue(Math.abs(a.driftNs()) <= a.startBoundNs() + a.endBoundNs(), "drift " + a.driftNs());
        assertFalse(a.drifted());
        assertEquals(HostClock.SAMPLES, a.samples());
        assertTrue(a.spanNs() >= 1_000_000_000L);
    }

    @Test
    void aVendorClockThatRunsFastIsReportedAsDrift() {
        SimulatedClocks c = new SimulatedClocks();
        HostClock clock = new HostClock(c.host, c.vendor);
        c.driftPerRead = 5; // 5 ns a read: at least the 500 warm-up reads, 2.5 µs, before any sample
        ClockAlignment a = clock.recheck();
        assertTrue(a.drifted(), "drift " + a.driftNs());
        assertTrue(a.driftNs() >= 2_500, "drift " + a.driftNs());
        assertTrue(a.errorBoundNs() >= a.driftNs(), "the error bound covers the drift");
    }
}
