package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The plausibility limits every decoder applies: a positive start, no end before it, at most a day, a device below 1024. */
class RecordLimitsTest {
    private static final long T = 1_765_000_000_000_000_000L; // an epoch-ns time in 2025

    @Test
    void intervalsWithinADayPass() {
        assertNull(RecordLimits.interval(T, T), "an instant");
        assertNull(RecordLimits.interval(1, 1));
        assertNull(RecordLimits.interval(T, T + RecordLimits.MAX_SPAN_NS), "exactly a day");
    }

    @Test
    void implausibleIntervalsSayWhy() {
        assertEquals("start 0 is not a timestamp", RecordLimits.interval(0, T));
        assertEquals("start -5 is not a timestamp", RecordLimits.interval(-5, T));
        assertEquals("ends before it starts [" + T + ", " + (T - 1) + "]", RecordLimits.interval(T, T - 1));
        assertEquals("lasts 86400000000001 ns, more than a day", RecordLimits.interval(T, T + RecordLimits.MAX_SPAN_NS + 1));
        assertEquals("lasts " + (Long.MAX_VALUE - 1) + " ns, more than a day", RecordLimits.interval(1, Long.MAX_VALUE));
    }

    @Test
    void devicesBelowTheLimit() {
        assertNull(RecordLimits.device(0));
        assertNull(RecordLimits.device(1023));
        assertEquals("device id 1024 is not below 1024", RecordLimits.device(1024));
        // CUPTI's "no device" is 0xffffffff: read as an int it is -1, named as the unsigned value
        assertEquals("device id 4294967295 is not below 1024", RecordLimits.device(-1));
        assertEquals("device id 4294967295 is not below 1024", RecordLimits.device(0xFFFF_FFFFL));
    }

    @Test
    void admitCountsEachRefusalWithItsFirstReason() {
        DecodeStats stats = new DecodeStats();
        assertTrue(RecordLimits.admit(T, T + 10, 3, "kernel", stats));
        assertEquals(0, stats.invalidRecords());
        assertFalse(RecordLimits.admit(T, T - 1, 5000, "memcpy", stats), "both wrong: the interval is named");
        assertFalse(RecordLimits.admit(T, T + 1, 5000, "memset", stats));
        assertEquals(2, stats.invalidRecords());
        assertEquals("memcpy record: ends before it starts [" + T + ", " + (T - 1) + "]; memset record: device id 5000 is not below 1024",
                stats.problems());
    }
}
