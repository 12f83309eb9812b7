package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.flagos.trace.model.DeviceClockMapping;
import org.junit.jupiter.api.Test;

/** What both time policies share: the identity clock and an open span until set, and 0 (no time) kept as 0 through any mapping. */
class CuptiTimesTest {
    private static final long EPOCH = 1_700_000_000_000_000_000L;

    @Test
    void untilSetTheClockIsIdentityAndTheSpanOpen() {
        CuptiTimes cupti = new CuptiRecordTimes();
        assertSame(DeviceClockMapping.IDENTITY, cupti.mapping);
        assertEquals(Long.MIN_VALUE, cupti.plausibleFrom);
        assertEquals(Long.MAX_VALUE, cupti.plausibleTo);
        assertEquals(EPOCH, cupti.toEpoch(EPOCH));
    }

    @Test
    void setReplacesTheClockAndTheSpan() {
        CuptiTimes t = new VendorClockTimes();
        DeviceClockMapping mapping = new DeviceClockMapping(1_000, EPOCH, 1.0);
        t.set(mapping, EPOCH, EPOCH + 5);
        assertSame(mapping, t.mapping);
        assertEquals(EPOCH, t.plausibleFrom);
        assertEquals(EPOCH + 5, t.plausibleTo);
        assertEquals(EPOCH + 500, t.toEpoch(1_500));
        assertEquals(EPOCH - 1_000 + 1, t.toEpoch(1), "1 is a time, before the knot");
    }

    @Test
    void noTimeStaysNoTimeThroughAnyMapping() {
        CuptiTimes t = new CuptiRecordTimes();
        t.set(new DeviceClockMapping(1_000, EPOCH, 1.0), Long.MIN_VALUE, Long.MAX_VALUE);
        assertEquals(0, t.toEpoch(0), "not EPOCH - 1000");
    }

    @Test
    void theLastAcceptedTimesAreKept() {
        CuptiTimes t = new CuptiRecordTimes();
        t.set(new DeviceClockMapping(1_000, EPOCH, 1.0), EPOCH, EPOCH + 10_000);
        t.accept(2_000, 3_000, 0, "kernel", new org.flagos.trace.model.DecodeStats());
        assertEquals(EPOCH + 1_000, t.startNs());
        assertEquals(EPOCH + 2_000, t.endNs());
    }
}
