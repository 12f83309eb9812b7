package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceClockMapping;
import org.junit.jupiter.api.Test;

/**
 * CUPTI's own times: every copy of the H200 kinds captures accepted as CUPTI gave it; a record
 * without a start counted incomplete; one outside the limits or the session's span counted invalid, in words.
 */
class CuptiRecordTimesTest {
    private static final long T = 1_765_000_000_000_000_000L;

    @Test
    void everyCopyOfTheH200CapturesIsAcceptedAsCuptiTimedIt() {
        int copies = 0;
        for (String capture : FixtureRecords.KINDS) {
            CuptiRecordTimes times = new CuptiRecordTimes();
            CuptiMemcpyDecoder k = new CuptiMemcpyDecoder(CuptiRecordLayout.CUPTI_13_0, times);
            DecodeStats stats = new DecodeStats();
            List<FixtureRecords.Record> records = FixtureRecords.of(capture, "memcpy", CuptiActivityKind.MEMCPY);
            for (FixtureRecords.Record r : records) {
                JsonNode t = r.truth();
                k.wrap(r.buffer(), r.offset());
                assertTrue(times.accept(k.rawStart(), k.rawEnd(), k.deviceId(), "memcpy", stats), capture);
                assertEquals(t.get("start").asLong(), times.startNs());
                assertEquals(t.get("end").asLong(), times.endNs());
                copies++;
            }
            assertEquals(0, stats.invalidRecords() + stats.incompleteRecords(), stats.problems());
        }
        assertEquals(20, copies, "the two captures' copies (CuptiMemcpyDecoderTest)");
    }

    @Test
    void aRecordWithoutAStartIsIncompleteNotInvalid() {
        DecodeStats stats = new DecodeStats();
        assertFalse(new CuptiRecordTimes().accept(0, T, 0, "memcpy", stats));
        assertEquals(1, stats.incompleteRecords());
        assertEquals(0, stats.invalidRecords());
        assertEquals("", stats.problems());
    }

    @Test
    void implausibleRecordsAreCountedInWords() {
        assertEquals("kernel record: ends before it starts [" + T + ", " + (T - 1) + "]", refused(T, T - 1, 0));
        assertEquals("kernel record: device id 4294967295 is not below 1024", refused(T, T + 1, -1));
        assertEquals("kernel record: times [" + (T - 1) + ", " + T + "] lie outside the session's plausible span [" + T + ", "
                + (T + 100) + "]", refused(T - 1, T, 0));
        assertEquals("kernel record: times [" + T + ", " + (T + 101) + "] lie outside the session's plausible span [" + T + ", "
                + (T + 100) + "]", refused(T, T + 101, 0));
        DecodeStats stats = new DecodeStats();
        assertTrue(session().accept(T, T + 100, 1023, "kernel", stats), "the span's own ends are inside it");
    }

    private static CuptiRecordTimes session() {
        CuptiRecordTimes times = new CuptiRecordTimes();
        times.set(DeviceClockMapping.IDENTITY, T, T + 100);
        return times;
    }

    private static String refused(long start, long end, int device) {
        DecodeStats stats = new DecodeStats();
        assertFalse(session().accept(start, end, device, "kernel", stats));
        assertEquals(1, stats.invalidRecords());
        return stats.problems();
    }
}
