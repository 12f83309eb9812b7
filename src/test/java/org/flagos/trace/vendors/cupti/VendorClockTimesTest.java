package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceClockMapping;
import org.junit.jupiter.api.Test;

/**
 * A vendor's own device clock (MUPTI, TOPSPTI): times read as unsigned, mapped to epoch ns through the
 * session's mapping, and a record dropped and counted, with words that name the time at fault, when a
 * time is 0, it ends before it starts, a time is above 2^63, it maps outside the session, or the
 * record's limits refuse it (a span over a day, a device id past 1023).
 */
class VendorClockTimesTest {
    private static final long EPOCH = 1_700_000_000_000_000_000L;

    /** Vendor time 1,000 is EPOCH; the session spans vendor times 1,000 to 1,000,000. */
    private static VendorClockTimes session() {
        VendorClockTimes t = new VendorClockTimes();
        t.set(new DeviceClockMapping(1_000, EPOCH, 1.0), EPOCH, EPOCH + 999_000);
        return t;
    }

    private static String refused(long start, long end, int device) {
        DecodeStats stats = new DecodeStats();
        assertFalse(session().accept(start, end, device, "kernel", stats), start + ".." + end);
        assertEquals(1, stats.invalidRecords());
        return stats.problems();
    }

    @Test
    void aRecordInsideTheSessionMapsToEpoch() {
        VendorClockTimes t = session();
        DecodeStats stats = new DecodeStats();
        assertTrue(t.accept(2_000, 2_500, 7, "kernel", stats));
        assertEquals(EPOCH + 1_000, t.startNs());
        assertEquals(EPOCH + 1_500, t.endNs());
        assertTrue(t.accept(1_000, 1_000_000, 0, "memcpy", stats), "both ends of the span are inside");
        assertEquals(EPOCH, t.startNs());
        assertEquals(EPOCH + 999_000, t.endNs());
        assertEquals(0, stats.invalidRecords());
        assertEquals("", stats.problems());

        VendorClockTimes identity = new VendorClockTimes(); // before a session sets its mapping: vendor time is epoch time
        assertTrue(identity.accept(5, 9, 0, "kernel", stats));
        assertEquals(5, identity.startNs());
        assertFalse(identity.accept(0, 9, 0, "kernel", stats), "0 is no time, whatever the span");
    }

    @Test
    void eachRefusalIsCountedWithTheTimeAtFault() {
        assertEquals("kernel record without a timestamp (start 0, end 5000)", refused(0, 5_000, 0));
        assertEquals("kernel record without a timestamp (start 5000, end 0)", refused(5_000, 0, 0));
        assertEquals("kernel record ends before it starts (vendor clock 5000, 4999)", refused(5_000, 4_999, 0));
        // unsigned: 2^64 - 1 is after 5000, not before it
        assertEquals("kernel record ends before it starts (vendor clock 18446744073709551615, 5000)", refused(-1, 5_000, 0));
        assertEquals("kernel record at vendor time 18446744073709551614, above 2^63", refused(-2, -1, 0));
        assertEquals("kernel record at vendor time 9223372036854775808, above 2^63", refused(5_000, Long.MIN_VALUE, 0),
                "the end is the time above 2^63");
        assertEquals("kernel record at vendor time 999 maps outside the session ([" + (EPOCH - 1) + ", " + (EPOCH + 1_000)
                + "] not in [" + EPOCH + ", " + (EPOCH + 999_000) + "])", refused(999, 2_000, 0));
        assertEquals("kernel record at vendor time 2000 maps outside the session ([" + (EPOCH + 1_000) + ", " + (EPOCH + 999_001)
                + "] not in [" + EPOCH + ", " + (EPOCH + 999_000) + "])", refused(2_000, 1_000_001, 0), "the end is outside");
        assertEquals("kernel record: device id 1024 is not below 1024", refused(2_000, 3_000, 1024),
                "the record's limits apply after the mapping");
    }

    @Test
    void aSpanOfMoreThanADayIsRefusedByTheRecordLimits() {
        VendorClockTimes t = new VendorClockTimes(); // identity, no session bounds
        DecodeStats stats = new DecodeStats();
        assertFalse(t.accept(1, 86_400_000_000_002L, 0, "memset", stats));
        assertEquals("memset record: lasts 86400000000001 ns, more than a day", stats.problems());
        assertTrue(t.accept(1, 86_400_000_000_001L, 0, "memset", stats), "exactly a day is kept");
    }
}
