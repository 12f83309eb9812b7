package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The piecewise mapping of a vendor clock: continuous, never decreasing, and read back knot by knot. */
class DeviceClockMappingTest {
    private static final long EPOCH = 1_700_000_000_000_000_000L;

    @Test
    void aNewPieceStartsWhereTheChainWasSoNothingBeforeItMoves() {
        DeviceClockMapping one = new DeviceClockMapping(1_000, EPOCH, 0.95);
        DeviceClockMapping two = one.continuedAt(1_000_000, 0.96);
        assertEquals(2, two.knots());
        for (long t : new long[] {0, 999, 1_000, 500_000, 999_999}) {
            assertEquals(one.toEpoch(t), two.toEpoch(t), "before the new knot at " + t);
        }
        assertEquals(one.toEpoch(1_000_000), two.toEpoch(1_000_000), "continuous at the knot");
        assertEquals(one.toEpoch(1_000_000) + 96, two.toEpoch(1_000_100), "the new rate after it");
        assertEquals(EPOCH, two.epochNs());
        assertEquals(1_000, two.vendorNs());
        assertEquals(0.96, two.rate(), "the latest rate");
    }

    @Test
    void theChainNeverDecreasesAcrossKnotsWhateverTheRates() {
        DeviceClockMapping m = new DeviceClockMapping(0, EPOCH, 1.0);
        double[] rates = {0.91, 1.09, 0.95, 1.05, 0.999_999, 1.000_001};
        for (int i = 0; i < rates.length; i++) {
            m = m.continuedAt((i + 1) * 10_000L, rates[i]);
        }
        long previous = Long.MIN_VALUE;
        for (long t = -1_000; t < 80_000; t++) {
            long e = m.toEpoch(t);
            assertTrue(e >= previous, "at " + t);
            previous = e;
        }
    }

    @Test
    void aKnotAtOrBeforeTheLastOneOrPastTheCapLeavesTheChain() {
        DeviceClockMapping m = new DeviceClockMapping(1_000, EPOCH, 1.0).continuedAt(5_000, 1.01);
        assertSame(m, m.continuedAt(5_000, 1.02));
        assertSame(m, m.continuedAt(4_000, 1.02));
        assertSame(m, m.continuedAt(9_000, 1.01), "the same rate starts no piece");
        DeviceClockMapping full = new DeviceClockMapping(0, EPOCH, 1.0);
        for (int i = 1; i < DeviceClockMapping.MAX_KNOTS; i++) {
            full = full.continuedAt(i * 100L, i % 2 == 0 ? 1.0 : 1.001);
        }
        assertEquals(DeviceClockMapping.MAX_KNOTS, full.knots());
        assertSame(full, full.continuedAt(10_000_000L, 0.99));
    }

    @Test
    void readBackKnotByKnotAsAJournalAppendsThem() {
        DeviceClockMapping chain = new DeviceClockMapping(1_000, EPOCH, 0.95).continuedAt(2_000, 0.951).continuedAt(3_000, 0.952);
        DeviceClockMapping read = null;
        for (int i = 0; i < chain.knots(); i++) {
            read = read == null ? new DeviceClockMapping(chain.knotVendorNs(i), chain.knotEpochNs(i), chain.knotRate(i))
                    : read.withKnot(chain.knotVendorNs(i), chain.knotEpochNs(i), chain.knotRate(i));
        }
        assertEquals(chain, read);
        // A knot at the first one's time starts the chain anew: a single-line journal reads as its last document.
        DeviceClockMapping restarted = read.withKnot(1_000, EPOCH, 0.953);
        assertEquals(new DeviceClockMapping(1_000, EPOCH, 0.953), restarted);
        assertEquals(chain, DeviceClockMapping.ofKnots(new long[] {1_000, 2_000, 3_000},
                new long[] {EPOCH, chain.knotEpochNs(1), chain.knotEpochNs(2)}, new double[] {0.95, 0.951, 0.952}));
    }

    @Test
    void knotsOutOfOrderOrRatesNoClockHasAreRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> DeviceClockMapping.ofKnots(new long[] {5, 5}, new long[] {0, 0}, new double[] {1.0, 1.0}));
        assertThrows(IllegalArgumentException.class,
                () -> DeviceClockMapping.ofKnots(new long[] {5}, new long[] {0}, new double[] {Double.NaN}));
        assertThrows(IllegalArgumentException.class,
                () -> DeviceClockMapping.ofKnots(new long[0], new long[0], new double[0]));
        assertThrows(IllegalArgumentException.class, () -> new DeviceClockMapping(0, 0, 1.0).continuedAt(10, 3.0));
    }

    @Test
    void theIdentityMapsNothing() {
        assertTrue(DeviceClockMapping.IDENTITY.isIdentity());
        assertEquals(123_456_789L, DeviceClockMapping.IDENTITY.toEpoch(123_456_789L));
        assertTrue(new DeviceClockMapping(7, 7, 1.0).isIdentity());
    }
}
