package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.UnaryOperator;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.testing.CuptiRecords;
import org.flagos.trace.testing.TraceJson;
import org.flagos.trace.testing.TraceJson.Replayed;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Agitators: the trace and summary do not depend on the order in which buffers, or even single
 * records, arrive. Kernels then routinely precede their correlation bindings.
 */
class ArrivalOrderTest {
    private static List<String> canonical(Replayed t) {
        List<String> events = new ArrayList<>();
        for (JsonNode e : t.events()) {
            events.add(e.toString());
        }
        Collections.sort(events);
        return events;
    }

    private static UnaryOperator<List<CaptureReplay.Frame>> reversedFrames() {
        return frames -> {
            List<CaptureReplay.Frame> copy = new ArrayList<>(frames);
            Collections.reverse(copy);
            return copy;
        };
    }

    /** Splits every buffer into one frame per record and shuffles them. */
    private static UnaryOperator<List<CaptureReplay.Frame>> shuffledRecords(long seed) {
        return frames -> CuptiRecords.shuffledRecords(frames, seed);
    }

    @ParameterizedTest
    @ValueSource(strings = {"h200-mt4", "h200-tiny30k"})
    void reversedBuffersGiveTheSameTrace(String capture) {
        Replayed inOrder = TraceJson.replay(capture);
        Replayed reversed = TraceJson.replay(capture, reversedFrames());
        assertEquals(canonical(inOrder), canonical(reversed));
        assertEquals(inOrder.result().summary().rows(), reversed.result().summary().rows());
    }

    @ParameterizedTest
    @ValueSource(strings = {"h200-app", "h200-mt4"})
    void shuffledRecordsGiveTheSameTraceAndSummary(String capture) {
        Replayed inOrder = TraceJson.replay(capture);
        Replayed shuffled = TraceJson.replay(capture, shuffledRecords(7));
        assertTrue(shuffled.result().accounting().lateJoined() > 0, "the agitator really reordered bindings");
        assertEquals(canonical(inOrder), canonical(shuffled));
        assertEquals(inOrder.result().summary().rows(), shuffled.result().summary().rows());
        ObjectNode a = (ObjectNode) inOrder.trace().get("flagtrace").deepCopy();
        ObjectNode b = (ObjectNode) shuffled.trace().get("flagtrace").deepCopy();
        a.remove("joined_after_arrival");
        b.remove("joined_after_arrival");
        assertEquals(a, b, "the same accounting, whatever the order");
    }

    @ParameterizedTest
    @ValueSource(strings = {"h200-app"})
    void aMissingBindingLeavesTheRecordUnattributedAndCounted(String capture) {
        UnaryOperator<List<CaptureReplay.Frame>> dropBindings = frames -> {
            List<CaptureReplay.Frame> out = new ArrayList<>();
            for (CaptureReplay.Frame f : shuffledRecords(1).apply(frames)) {
                if (f.payload().getInt(f.payload().position()) != CuptiActivityKind.EXTERNAL_CORRELATION) {
                    out.add(f);
                }
            }
            return out;
        };
        Replayed t = TraceJson.replay(capture, dropBindings);
        for (JsonNode e : t.events()) {
            assertTrue(!e.path("args").has("External id") || "cpu_op".equals(e.path("cat").asText()), e.toString());
        }
        assertEquals(0.0, t.result().summary().row("app::mm").selfDeviceTimeTotalUs());
        assertTrue(t.trace().get("flagtrace").get("without_external_id").get("kernel").asLong() > 0);
    }
}
