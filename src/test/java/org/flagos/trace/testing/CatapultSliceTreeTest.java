package org.flagos.trace.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The restated viewer rules on rows made for them (no browser: {@code CatapultViewerTest} checks the
 * same against the viewer itself): work queued 47 ns after the previous work on its stream and ending
 * in the microsecond that work ends in is out of its arrow's reach at the display unit, in reach at ns.
 */
class CatapultSliceTreeTest {
    private static JsonNode trace(String unit, String events) throws Exception {
        return TraceJson.MAPPER.readTree("{\"displayTimeUnit\":\"" + unit + "\",\"traceEvents\":[" + events + "]}");
    }

    private static String work(long id, String ts, String dur) {
        return "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"w\",\"pid\":0,\"tid\":7,\"ts\":" + ts + ",\"dur\":" + dur
                + ",\"args\":{\"correlation\":" + id + "}},{\"ph\":\"f\",\"id\":" + id + ",\"pid\":0,\"tid\":7,\"ts\":" + ts
                + ",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"}";
    }

    private static long bound(Map<Long, JsonNode> ends, long id) {
        return ends.get(id).get("args").get("correlation").asLong();
    }

    @Test
    void workEndingInTheMicrosecondThePreviousWorkEndsInIsOutOfReachAtTheDisplayUnit() throws Exception {
        // first ends at 1000.506 (rounds to 1001); second runs 1000.553 to 1001.410 (rounds to 1001 too)
        JsonNode t = trace("ms", work(1, "999.649", "0.857") + "," + work(2, "1000.553", "0.857"));
        Map<Long, JsonNode> shown = CatapultSliceTree.flowEnds(t, CatapultSliceTree.Precision.DISPLAY_UNIT);
        assertEquals(1, bound(shown, 1));
        assertNull(shown.get(2L), "nested under the first, which holds none of its instants: flow_slice_end_error");
        Map<Long, JsonNode> exact = CatapultSliceTree.flowEnds(t, CatapultSliceTree.Precision.NANOSECONDS);
        assertEquals(2, bound(exact, 2));
        JsonNode ns = trace("ns", work(1, "999.649", "0.857") + "," + work(2, "1000.553", "0.857"));
        assertEquals(2, bound(CatapultSliceTree.flowEnds(ns, CatapultSliceTree.Precision.DISPLAY_UNIT), 2),
                "a trace displayed in ns nests at ns");
    }

    @Test
    void aSpanAroundBothTakesTheHiddenArrow() throws Exception {
        String span = "{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"op\",\"pid\":0,\"tid\":7,\"ts\":999.648,"
                + "\"dur\":1.763,\"args\":{}}";
        JsonNode t = trace("ms", span + "," + work(1, "999.649", "0.857") + "," + work(2, "1000.553", "0.857"));
        Map<Long, JsonNode> shown = CatapultSliceTree.flowEnds(t, CatapultSliceTree.Precision.DISPLAY_UNIT);
        assertEquals("gpu_user_annotation", shown.get(2L).get("cat").asText());
        assertEquals(2, bound(CatapultSliceTree.flowEnds(t, CatapultSliceTree.Precision.NANOSECONDS), 2));
    }

    @Test
    void workAMicrosecondApartIsInReachEitherWay() throws Exception {
        JsonNode t = trace("ms", work(1, "999.649", "0.857") + "," + work(2, "1001.506", "0.857"));
        for (CatapultSliceTree.Precision p : CatapultSliceTree.Precision.values()) {
            Map<Long, JsonNode> ends = CatapultSliceTree.flowEnds(t, p);
            assertEquals(1, bound(ends, 1), p.toString());
            assertEquals(2, bound(ends, 2), p.toString());
        }
    }
}
