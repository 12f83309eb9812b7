package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.testing.CuptiRecords;
import org.flagos.trace.testing.TraceJson;
import org.flagos.trace.testing.TraceJson.Replayed;
import org.junit.jupiter.api.Test;

/**
 * Synchronization records, a graph launch's kernels and CUPTI's overhead records, written at CUPTI
 * 13.0's offsets into two buffers (a host thread's: launches, synchronizing calls and bindings; the
 * device's: kernels, synchronizations, an overhead record) and replayed beside the real h200-app
 * capture, inside its op {@code app::mm} (External id 3). Golden: the events torch's schema gives
 * them, byte for byte. Agitators: the buffers reversed, every record shuffled, a binding missing, a
 * device buffer delivered twice.
 */
public class SyncGraphOverheadTest {
    private static final String CAPTURE = "h200-app";
    /** Inside app::mm; the trace's base is 1795982694 s, so T0 is at 1166400.000 µs. */
    private static final long T0 = 1_795_982_695_166_400_000L;
    private static final int PID = 535;
    private static final int TID = (int) 2452680704L;
    private static final long RELU = 0x5622d22bc6e0L;
    private static final int GRAPH_LAUNCH = 311;
    private static final int STREAM_SYNCHRONIZE = 131;
    private static final int EVENT_SYNCHRONIZE = 137;
    private static final int DEVICE_SYNCHRONIZE = 165;
    private static final int STREAM_WAIT_EVENT = 147;
    private static final long TWO_32 = 1L << 32;

    /** The host thread's buffer: a graph launch and four synchronizing calls, all but the last bound to app::mm. */
    private static CuptiRecords host(boolean bindings) {
        CuptiRecords r = new CuptiRecords();
        if (bindings) {
            r.binding(900001, 3);
        }
        r.runtime(GRAPH_LAUNCH, T0, T0 + 5_000, PID, TID, 900001);
        if (bindings) {
            r.binding(900002, 3);
        }
        r.runtime(STREAM_SYNCHRONIZE, T0 + 10_000, T0 + 90_000, PID, TID, 900002);
        if (bindings) {
            r.binding(900003, 3);
        }
        r.runtime(EVENT_SYNCHRONIZE, T0 + 100_000, T0 + 120_000, PID, TID, 900003);
        if (bindings) {
            r.binding(900005, 3);
        }
        r.runtime(STREAM_WAIT_EVENT, T0 + 125_000, T0 + 126_000, PID, TID, 900005);
        r.runtime(DEVICE_SYNCHRONIZE, T0 + 130_000, T0 + 150_000, PID, TID, 900004); // launched outside any op's binding
        return r;
    }

    /** The device's buffer: the graph's three kernels (graph 5, nodes 11-13), four synchronizations, one overhead. */
    private static CuptiRecords device() {
        return new CuptiRecords()
                .overhead(7 << 16, T0 + 1_000, T0 + 3_000, PID, TID)
                .kernel(T0 + 20_000, T0 + 30_000, 0, 1, 7, 900001, RELU, 5, 11)
                .kernel(T0 + 31_000, T0 + 41_000, 0, 1, 7, 900001, RELU, 5, 12)
                .kernel(T0 + 42_000, T0 + 52_000, 0, 1, 7, 900001, RELU, 5, 13)
                .sync(3, T0 + 10_000, T0 + 90_000, 900002, 1, 7, CuptiRecords.INVALID)
                .sync(1, T0 + 100_000, T0 + 120_000, 900003, 1, CuptiRecords.INVALID, 42)
                .sync(2, T0 + 125_000, T0 + 126_000, 900005, 1, 13, 42)
                .sync(4, T0 + 130_000, T0 + 150_000, 900004, 1, CuptiRecords.INVALID, CuptiRecords.INVALID);
    }

    private static UnaryOperator<List<CaptureReplay.Frame>> with(CaptureReplay.Frame... added) {
        return frames -> {
            List<CaptureReplay.Frame> all = new ArrayList<>(frames);
            Collections.addAll(all, added);
            return all;
        };
    }

    private static Replayed replay(UnaryOperator<List<CaptureReplay.Frame>> order) {
        return TraceJson.replay(CAPTURE, order);
    }

    /** h200-app's buffers and the two constructed ones, in file order: what every other format is checked on too. */
    public static UnaryOperator<List<CaptureReplay.Frame>> addedBuffers() {
        return with(host(true).frame(), device().frame());
    }

    static Replayed inOrder() {
        return replay(with(host(true).frame(), device().frame()));
    }

    @Test
    void synchronizationsAreTorchsCudaSyncEventsOnTheirStreamRow() {
        String json = new String(inOrder().bytes(), StandardCharsets.UTF_8);
        for (String golden : List.of(
                "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Sync\",\"pid\":0,\"tid\":7,\"ts\":1166410.000,"
                        + "\"dur\":80.000,\"args\":{\"External id\":3,\"cuda_sync_kind\":\"Stream Sync\",\"stream\":7,"
                        + "\"correlation\":900002,\"device\":0,\"context\":1}}",
                "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Event Sync\",\"pid\":0,\"tid\":1,\"ts\":1166500.000,"
                        + "\"dur\":20.000,\"args\":{\"External id\":3,\"cuda_sync_kind\":\"Event Sync\",\"wait_on_stream\":-1,"
                        + "\"wait_on_cuda_event_record_corr_id\":-1,\"wait_on_cuda_event_id\":42,\"stream\":-1,"
                        + "\"correlation\":900003,\"device\":0,\"context\":1}}",
                "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Wait Event\",\"pid\":0,\"tid\":13,\"ts\":1166525.000,"
                        + "\"dur\":1.000,\"args\":{\"External id\":3,\"cuda_sync_kind\":\"Stream Wait Event\",\"wait_on_stream\":-1,"
                        + "\"wait_on_cuda_event_record_corr_id\":-1,\"wait_on_cuda_event_id\":42,\"stream\":13,"
                        + "\"correlation\":900005,\"device\":0,\"context\":1}}",
                "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Context Sync\",\"pid\":0,\"tid\":1,\"ts\":1166530.000,"
                        + "\"dur\":20.000,\"args\":{\"cuda_sync_kind\":\"Context Sync\",\"stream\":-1,"
                        + "\"correlation\":900004,\"device\":0,\"context\":1}}")) {
            assertTrue(json.contains(golden), "missing " + golden);
        }
    }

    @Test
    void overheadIsDrawnWhereTorchDrawsItAndCounted() {
        Replayed t = inOrder();
        String json = new String(t.bytes(), StandardCharsets.UTF_8);
        assertTrue(json.contains("{\"ph\":\"X\",\"cat\":\"overhead\",\"name\":\"Activity Buffer Request\",\"pid\":-1,"
                + "\"tid\":0,\"ts\":1166401.000,\"dur\":2.000}"), "the overhead slice, without args as torch writes it");
        assertTrue(json.contains("{\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":852089.627,\"pid\":0,\"tid\":1,"
                + "\"args\":{\"name\":\"Device 0\"}}"), "torch's device row for what concerns no stream");
        JsonNode block = t.trace().get("flagtrace");
        assertEquals(1, block.get("decoded").get("overhead").asLong());
        assertEquals(4, block.get("decoded").get("cuda_sync").asLong());
        assertEquals(1, block.get("profiler_overhead").get("records").asLong());
        assertEquals(2_000, block.get("profiler_overhead").get("ns").asLong());
        assertFalse(block.get("skipped_vendor_kinds").has("17"), "no longer skipped");
        assertTrue(t.result().accounting().lines().stream().anyMatch(l -> l.startsWith("profiler overhead")));
    }

    @Test
    void graphKernelsCarryTheirIdsAndTheirOpAndEachGetsAnArrowFromTheOneLaunch() {
        Replayed t = inOrder();
        List<JsonNode> graphKernels = new ArrayList<>();
        for (JsonNode k : t.category("kernel")) {
            if (k.get("args").has("graph id")) {
                graphKernels.add(k);
            }
        }
        assertEquals(3, graphKernels.size());
        for (int i = 0; i < 3; i++) {
            JsonNode args = graphKernels.get(i).get("args");
            assertEquals(5, args.get("graph id").asLong());
            assertEquals(11 + i, args.get("graph node id").asLong());
            assertEquals(3, args.get("External id").asLong(), "attributed to the op that launched the graph");
            assertEquals(900001, args.get("correlation").asLong());
        }
        Map<Long, JsonNode> arrows = paired(t);
        for (long node = 11; node <= 13; node++) {
            JsonNode s = arrows.get(900001 + (node + 1) * TWO_32);
            assertNotNull(s, "the arrow of graph node " + node + ", its id from its correlation and node");
            assertEquals(1166400.000, s.get("ts").asDouble(), "every arrow starts at the launch");
        }
        for (long c : new long[] {900002, 900003, 900004, 900005}) {
            assertNotNull(arrows.get(c), "the synchronizing call is linked to its synchronization " + c);
        }
    }

    @Test
    void theOpsDeviceTimeCountsTheGraphsKernelsNotTheWaits() {
        Replayed base = TraceJson.replay(CAPTURE);
        Replayed added = inOrder();
        double before = base.result().summary().row("app::mm").selfDeviceTimeTotalUs();
        double after = added.result().summary().row("app::mm").selfDeviceTimeTotalUs();
        assertEquals(before + 30.0, after, 1e-6, "three 10 µs kernels, no synchronization time");
    }

    @Test
    void theTraceIsTheSameInAnyArrivalOrder() {
        List<String> expected = canonical(inOrder());
        UnaryOperator<List<CaptureReplay.Frame>> reversed = frames -> {
            List<CaptureReplay.Frame> all = new ArrayList<>(with(host(true).frame(), device().frame()).apply(frames));
            Collections.reverse(all);
            return all;
        };
        assertEquals(expected, canonical(replay(reversed)), "buffers reversed: device records before their launches");
        for (long seed : new long[] {1, 2, 3}) {
            Replayed shuffled = replay(frames -> CuptiRecords.shuffledRecords(
                    with(host(true).frame(), device().frame()).apply(frames), seed));
            assertEquals(expected, canonical(shuffled), "records shuffled, seed " + seed);
        }
    }

    @Test
    void aMissingBindingLeavesTheRecordsUnattributedAndCounted() {
        Replayed t = replay(with(host(false).frame(), device().frame()));
        for (JsonNode e : t.category("cuda_sync")) {
            assertFalse(e.get("args").has("External id"), e.toString());
        }
        assertEquals(4, t.trace().get("flagtrace").get("without_external_id").get("cuda_sync").asLong());
        paired(t);
    }

    @Test
    void aDeviceBufferDeliveredTwiceDrawsItTwiceAndLeavesNoHalfAlone() {
        Replayed t = replay(with(host(true).frame(), device().frame(), device().frame()));
        assertEquals(8, t.category("cuda_sync").size());
        assertEquals(2, t.category("overhead").size());
        Map<Long, Integer> halves = new HashMap<>();
        for (JsonNode e : t.category("ac2g")) {
            halves.merge(e.get("id").asLong(), "s".equals(e.get("ph").asText()) ? 1 : -1, Integer::sum);
        }
        halves.forEach((id, balance) -> assertEquals(0, balance, "as many s as f halves for id " + id));
        assertTrue(halves.containsKey(900001 + 12 * TWO_32), "the repeated graph record is linked to its launch too");
    }

    /** Every flow start has its finish and ids are unique; the starts by id. */
    private static Map<Long, JsonNode> paired(Replayed t) {
        Map<Long, JsonNode> starts = new HashMap<>();
        Map<Long, JsonNode> finishes = new HashMap<>();
        for (JsonNode e : t.category("ac2g")) {
            Map<Long, JsonNode> side = "s".equals(e.get("ph").asText()) ? starts : finishes;
            assertTrue(side.put(e.get("id").asLong(), e) == null, "duplicate half " + e);
        }
        assertEquals(starts.keySet(), finishes.keySet(), "every s has its f");
        return starts;
    }

    private static List<String> canonical(Replayed t) {
        List<String> events = new ArrayList<>();
        for (JsonNode e : t.events()) {
            events.add(e.toString());
        }
        Collections.sort(events);
        return events;
    }
}
