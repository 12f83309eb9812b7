package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.stages.OpSummaryRow;
import org.flagos.trace.testing.CuptiRecords;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;

/**
 * NVTX markers that do not pair, and ranges whose records come in every order CUPTI's buffers allow,
 * written at CUPTI 13.0's offsets ({@link CuptiRecords#marker}): an end without a start, a start
 * seen twice, a start never closed are counted and not drawn; nested push/pop ranges each get the
 * device work of the calls they enclose directly, whichever of the call, the range's end and the
 * kernel comes first in the buffer; a call on another thread, or one before the range's start, is
 * not the range's.
 */
class NvtxRangeAgitatorTest {
    private static final long T0 = 1_790_000_000_000_000_000L;
    private static final int PID = 77;
    private static final int TID = 1234;
    private static final int LAUNCH = 211; // cudaLaunchKernel_v7000
    private static final long OUTER = 0x5000_1000L;
    private static final long INNER = 0x5000_2000L;
    private static final long MARK = 0x5000_3000L;
    private static final long DOMAIN = 0x5000_4000L;
    private static final long KERNEL = 0x5000_5000L;
    private static final Map<Long, String> NAMES = Map.of(OUTER, "outer", INNER, "inner", MARK, "mark", DOMAIN, "dom",
            KERNEL, "_Z1kv");

    private static TraceJson.Replayed replay(CuptiRecords records) {
        byte[] buffer = records.bytes();
        byte[] magic = "FLTRBUF1".getBytes(StandardCharsets.US_ASCII);
        ByteBuffer capture = ByteBuffer.allocate(magic.length + 16 + buffer.length).order(ByteOrder.LITTLE_ENDIAN);
        capture.put(magic).putInt(1).putInt(0).putLong(buffer.length).put(buffer).flip();
        return TraceJson.replay(CaptureReplay.Request.of(capture, "nvtx.fltrbuf").kernelNames(NAMES::get)
                .ringSize(1 << 8).build());
    }

    private static JsonNode annotations(TraceJson.Replayed t) {
        return t.trace().get("flagtrace").get("annotations");
    }

    @Test
    void anEndWithoutAStartIsCountedAndNotDrawn() {
        TraceJson.Replayed t = replay(new CuptiRecords().marker(CuptiRecords.END, T0 + 10, 9, PID, TID, 0, 0));
        assertEquals(0, t.category("user_annotation").size());
        assertEquals(1, annotations(t).get("ends_without_start").asLong());
        assertEquals(0, annotations(t).get("ranges").asLong());
    }

    @Test
    void aSecondStartOfAnOpenIdIsCountedAndTheFirstKept() {
        TraceJson.Replayed t = replay(new CuptiRecords()
                .marker(CuptiRecords.START, T0 + 10, 1, PID, TID, OUTER, 0)
                .marker(CuptiRecords.START, T0 + 20, 1, PID, TID, INNER, 0)
                .marker(CuptiRecords.END, T0 + 50, 1, PID, TID, 0, 0));
        List<JsonNode> ranges = t.category("user_annotation");
        assertEquals(1, ranges.size());
        assertEquals("outer", ranges.get(0).get("name").asText());
        assertEquals(0.040, ranges.get(0).get("dur").asDouble(), 1e-9, "from the first start to the end");
        assertEquals(1, annotations(t).get("duplicate_starts").asLong());
    }

    @Test
    void aStartNeverClosedIsCountedAndNotDrawn() {
        TraceJson.Replayed t = replay(new CuptiRecords()
                .marker(CuptiRecords.START, T0 + 10, 1, PID, TID, OUTER, 0)
                .marker(CuptiRecords.START, T0 + 20, 2, PID, TID, INNER, 0)
                .marker(CuptiRecords.END, T0 + 30, 2, PID, TID, 0, 0));
        assertEquals(List.of("inner"), names(t.category("user_annotation")));
        assertEquals(1, annotations(t).get("never_closed").asLong());
        assertEquals(1, annotations(t).get("ranges").asLong());
    }

    @Test
    void aMarkIsAThreadInstantWithItsDomain() {
        TraceJson.Replayed t = replay(new CuptiRecords()
                .marker(CuptiRecords.MARK, T0 + 10, 3, PID, TID, MARK, DOMAIN)
                .markerData(3, 42, 0xFF00FF00, 7));
        List<JsonNode> marks = t.category("cpu_instant_event");
        assertEquals(1, marks.size());
        JsonNode m = marks.get(0);
        assertEquals("mark", m.get("name").asText());
        assertEquals("t", m.get("s").asText());
        assertEquals(TID, m.get("tid").asLong());
        assertEquals("dom", m.get("args").get("domain").asText());
        assertEquals(1, annotations(t).get("marks").asLong());
        assertEquals(1, annotations(t).get("attribute_records_read").asLong());
        assertTrue(t.trace().get("flagtrace").get("skipped_vendor_kinds").isEmpty(), "MARKER_DATA read, not skipped");
    }

    /** outer [100, 400] encloses a launch (corr 7) and inner [150, 300], which encloses another (corr 8). */
    private static CuptiRecords nested(boolean kernelsFirst) {
        CuptiRecords r = new CuptiRecords();
        if (kernelsFirst) { // a device buffer completed before the thread's
            r.kernel(T0 + 1000, T0 + 1100, 0, 1, 7, 7, KERNEL, 0, 0).kernel(T0 + 1200, T0 + 1250, 0, 1, 7, 8, KERNEL, 0, 0);
        }
        r.marker(CuptiRecords.START, T0 + 100, 1, PID, TID, OUTER, 0)
                .runtime(LAUNCH, T0 + 110, T0 + 120, PID, TID, 7)
                .runtime(LAUNCH, T0 + 130, T0 + 140, PID, TID + 1, 9) // another thread: not outer's
                .marker(CuptiRecords.START, T0 + 150, 2, PID, TID, INNER, 0)
                .runtime(LAUNCH, T0 + 160, T0 + 170, PID, TID, 8)
                .marker(CuptiRecords.END, T0 + 300, 2, PID, TID, 0, 0)
                .marker(CuptiRecords.END, T0 + 400, 1, PID, TID, 0, 0);
        if (!kernelsFirst) {
            r.kernel(T0 + 1000, T0 + 1100, 0, 1, 7, 7, KERNEL, 0, 0).kernel(T0 + 1200, T0 + 1250, 0, 1, 7, 8, KERNEL, 0, 0);
        }
        return r.kernel(T0 + 1300, T0 + 1700, 0, 1, 7, 9, KERNEL, 0, 0);
    }

    @Test
    void nestedRangesGetTheDeviceWorkTheyEncloseDirectlyInEitherArrivalOrder() {
        for (boolean kernelsFirst : new boolean[] {false, true}) {
            TraceJson.Replayed t = replay(nested(kernelsFirst));
            String order = kernelsFirst ? "kernels first" : "kernels last";
            OpSummaryRow outer = t.result().summary().row("outer");
            OpSummaryRow inner = t.result().summary().row("inner");
            assertEquals(0.100, outer.selfDeviceTimeTotalUs(), 1e-9, order);
            assertEquals(0.050, inner.selfDeviceTimeTotalUs(), 1e-9, order);
            assertEquals(0.150, outer.deviceTimeTotalUs(), 1e-9, "inner's work is in outer's total: " + order);
            assertEquals(0.300, outer.cpuTimeTotalUs(), 1e-9);
            assertEquals(0.150, outer.selfCpuTimeTotalUs(), 1e-9, "inner nests in outer: " + order);
            assertEquals(2, annotations(t).get("calls_in_ranges").asLong(), order);
            assertEquals(2, annotations(t).get("device_records_in_ranges").asLong(), order);
            for (JsonNode k : t.category("kernel")) {
                long corr = k.get("args").get("correlation").asLong();
                assertEquals(corr != 9, k.get("args").has("External id"), "the other thread's launch is in no range: " + k);
            }
        }
    }

    @Test
    void aStartArrivingAfterTheCallItEnclosesDoesNotClaimIt() {
        TraceJson.Replayed t = replay(new CuptiRecords()
                .runtime(LAUNCH, T0 + 110, T0 + 120, PID, TID, 7)
                .marker(CuptiRecords.START, T0 + 100, 1, PID, TID, OUTER, 0)
                .marker(CuptiRecords.END, T0 + 400, 1, PID, TID, 0, 0)
                .kernel(T0 + 1000, T0 + 1100, 0, 1, 7, 7, KERNEL, 0, 0));
        assertEquals(1, t.category("user_annotation").size());
        assertEquals(0, annotations(t).get("calls_in_ranges").asLong());
        assertEquals(0.0, t.result().summary().row("outer").selfDeviceTimeTotalUs());
    }

    @Test
    void aMarkerOfNoPhaseIsInvalidAndCounted() {
        TraceJson.Replayed t = replay(new CuptiRecords().marker(CuptiRecords.START | CuptiRecords.END, T0 + 10, 1, PID, TID,
                OUTER, 0).marker(0, T0 + 20, 2, PID, TID, OUTER, 0));
        assertEquals(2, t.trace().get("flagtrace").get("invalid_records").asLong());
        assertFalse(t.trace().get("flagtrace").has("annotations"), "no marker decoded: no block");
    }

    private static List<String> names(List<JsonNode> events) {
        List<String> out = new ArrayList<>();
        events.forEach(e -> out.add(e.get("name").asText()));
        return out;
    }
}
