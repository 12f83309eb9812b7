package org.flagos.trace.vendors.family;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.RealtimeClock;
import org.junit.jupiter.api.Test;

/**
 * The live clock of a vendor with its own device clock, against a device clock of another epoch
 * and rate (PPU's fake: 21/20 of real time) whose samples are noisy by up to 4 µs (a loaded
 * machine). Device work back to back on one stream, 50 device ns apart, arrives in buffers; each
 * buffer is placed with the mapping resampled before it, as a session does.
 */
class VendorClockTest {
    private static final double DEVICE_RATE = 1.05;
    private static final long EPOCH_SHIFT = 1_600_000_000_000_000_000L;
    private static final long NOISE_NS = 4_000;

    /** The device clock now, exact: what records carry. */
    private static long deviceNow() {
        return Math.round((RealtimeClock.nowNs() - EPOCH_SHIFT) * DEVICE_RATE);
    }

    @Test
    void workBackToBackOnAStreamNeverOverlapsAcrossBuffersAndTheFinalMappingPlacesItWhereTheSessionDid() {
        SplittableRandom random = new SplittableRandom(17);
        // The sample's device reading lands up to NOISE_NS later than the real time read beside it.
        LongSupplier noisyDevice = () -> deviceNow() + Math.round(random.nextLong(NOISE_NS) * DEVICE_RATE);
        VendorClock clock = VendorClock.start(noisyDevice, false);
        List<long[]> placed = new ArrayList<>(); // {device start, device end, epoch start, epoch end}
        long deviceFree = deviceNow();
        for (int buffer = 0; buffer < 60; buffer++) {
            List<long[]> records = new ArrayList<>();
            for (int r = 0; r < 20; r++) {
                long start = Math.max(deviceNow(), deviceFree + 50);
                records.add(new long[] {start, start + 2_000});
                deviceFree = start + 2_000;
            }
            spinUntilDevice(deviceFree + 10_000); // the buffer completes after its records
            DeviceClockMapping mapping = clock.resample();
            for (long[] r : records) {
                placed.add(new long[] {r[0], r[1], mapping.toEpoch(r[0]), mapping.toEpoch(r[1])});
            }
            spinUntilDevice(deviceNow() + random.nextLong(200_000)); // buffers 0 to 0.2 ms apart
        }
        DeviceClockMapping last = clock.resample();

        long worstTruthError = 0;
        for (int i = 0; i < placed.size(); i++) {
            long[] p = placed.get(i);
            if (i > 0) {
                long[] before = placed.get(i - 1);
                assertTrue(p[2] > before[3], "record " + i + " starts at " + p[2] + ", before the one ahead of it on the"
                        + " stream ends (" + before[3] + "): 50 device ns apart, so they must not touch");
            }
            assertEquals(p[2], last.toEpoch(p[0]), "record " + i + "'s start as the saved mapping places it");
            assertEquals(p[3], last.toEpoch(p[1]), "record " + i + "'s end as the saved mapping places it");
            long truth = Math.round(p[0] / DEVICE_RATE) + EPOCH_SHIFT;
            worstTruthError = Math.max(worstTruthError, Math.abs(p[2] - truth));
        }
        assertTrue(last.knots() > 1, "the rate was refined as the session went: " + last);
        assertEquals(1 / DEVICE_RATE, last.rate(), 1e-3, "epoch ns per device ns");
        // Each piece is off by its rate's error over its length; the noise bounds the sum to a few samples' worth.
        assertTrue(worstTruthError < 5 * NOISE_NS, "worst distance to the true epoch time " + worstTruthError + " ns");
    }

    @Test
    void aVendorClockInEpochNanosecondsIsTheIdentityThroughout() {
        VendorClock clock = VendorClock.start(RealtimeClock::nowNs, true);
        assertTrue(clock.resample().isIdentity());
        assertTrue(clock.resample().isIdentity());
    }

    private static void spinUntilDevice(long deviceTime) {
        while (deviceNow() < deviceTime) {
            Thread.onSpinWait();
        }
    }
}
