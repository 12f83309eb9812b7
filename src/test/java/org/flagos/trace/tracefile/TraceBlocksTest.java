package org.flagos.trace.tracefile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.model.ClockAnchor;
import org.flagos.trace.model.ProcessIdentity;
import org.junit.jupiter.api.Test;

/**
 * The blocks around a trace's events, read from the bundled traces (flagtrace's live H200 trace, a
 * merge of the two-rank H200 capture, PyTorch's own H200 trace, HTA's multi-rank A100 traces) with
 * their values exactly, and every block that breaks a rule refused with one line naming the file and
 * what is wrong.
 */
class TraceBlocksTest {
    private static final Path NAME = Path.of("t.json");

    private static Path resource(String name) throws URISyntaxException {
        return Path.of(TraceBlocksTest.class.getResource(name).toURI());
    }

    private static TraceBlocks read(Path path, TraceReader.Options options) throws IOException {
        int[] events = {0};
        TraceBlocks b = TraceReader.read(path, "x", options, e -> events[0]++);
        assertTrue(events[0] > 0, path + ": the events were walked");
        return b;
    }

    private static TraceBlocks walk(String json) throws IOException {
        return TraceReader.walk(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), NAME, TraceReader.Options.FACTS, e -> { });
    }

    private static String refused(String json) {
        return assertThrows(TraceFormatException.class, () -> walk(json), json).getMessage();
    }

    @Test
    void flagtracesLiveTraceGivesItsAccountingAnchorsAndProcess() throws Exception {
        TraceBlocks b = read(resource("/captures/h200-java-managed/h200-java-managed.live.json.gz"), TraceReader.Options.FIELDS);
        assertTrue(b.flagtrace());
        assertFalse(b.bareArray() || b.merged() || b.cuda());
        assertEquals(1_796_208_337_000_000_000L, b.baseNs());
        assertEquals(List.of("NVIDIA H200"), b.devices());
        assertTrue(b.deviceObjects().isEmpty(), "not asked to keep them");
        assertEquals(new ProcessIdentity(-1, -1, -1, -1, "vm", 454, "f99ba953-8323-4b30-a1f7-90dca23b8fbc"), b.identity());
        assertEquals(-1, b.rank());
        assertEquals("vm", b.host());
        assertEquals(List.of(new ClockAnchor("start", 1_796_208_337_836_662_759L, 29_743_383_802L, 1_796_208_337_836_662_968L, 578),
                new ClockAnchor("stop", 1_796_208_338_475_428_772L, 30_382_149_820L, 1_796_208_338_475_428_986L, 622)), b.anchors());
        // every whole number of the flagtrace block by its dotted path, in the file's order (80 of them)
        Map<String, Long> a = b.accounting();
        assertEquals(80, a.size());
        assertEquals("events", a.keySet().iterator().next());
        assertEquals(3815L, a.get("events"));
        assertEquals(20L, a.get("decoded.kernel"));
        assertEquals(2962L, a.get("decoded.unified_memory"));
        assertEquals(1_095_486_651L, a.values().stream().mapToLong(Long::longValue).sum());
        assertEquals(List.of(), b.notes());
    }

    @Test
    void aMergedTraceGivesItsSlotsRanksAndPids() throws Exception {
        TraceBlocks b = read(resource("/captures/h200-ranks/h200-ranks.merged.json.gz"), TraceReader.Options.MERGE);
        assertTrue(b.merged());
        assertFalse(b.flagtrace(), "merge writes its own block, not one capture's");
        assertEquals(1_796_179_185_000_000_000L, b.baseNs());
        assertEquals(List.of(), b.devices());
        Map<Integer, TraceBlocks.MergeInput> in = b.mergeInputs();
        Map<String, Long> rank0 = new LinkedHashMap<>();
        rank0.put("-1", 1000L);
        rank0.put("781", 1001L);
        rank0.put("0", 1002L);
        rank0.put("Spans", 1003L);
        rank0.put("Traces", 1004L);
        rank0.put("", 1005L);
        assertEquals(new TraceBlocks.MergeInput(0, 0, "vm", rank0), in.get(0));
        assertEquals(List.of("-1", "782", "0", "Spans", "Traces", ""), new ArrayList<>(in.get(1).pids().keySet()), "in the file's order");
        assertEquals(2005L, in.get(1).pids().get(""));
        assertEquals("rank 1", in.get(1).label());
        assertEquals("slot 7", new TraceBlocks.MergeInput(7, -1, null, Map.of()).label());
        for (TraceBlocks.MergeInput i : in.values()) {
            for (long pid : i.pids().values()) {
                assertEquals(i.slot(), TraceBlocks.slotOf(pid));
            }
        }
        assertEquals(2, in.size());
    }

    @Test
    void torchsAndHtasTracesGiveTheirRankDevicesAndCuda() throws Exception {
        TraceBlocks torch = read(resource("/torch-reference/torch_trace.json"), TraceReader.Options.FACTS);
        assertTrue(torch.cuda(), "cuda_driver_version and cuda_runtime_version");
        assertFalse(torch.flagtrace());
        assertEquals(1_790_857_026_000_000_000L, torch.baseNs());
        assertEquals(List.of("NVIDIA H200"), torch.devices());
        assertEquals(1, torch.deviceObjects().size(), "kept when asked");
        assertEquals(-1, torch.rank());
        assertNull(torch.host());

        TraceBlocks nccl = read(resource("/hta/nccl_data.json.gz"), TraceReader.Options.FIELDS);
        assertEquals(0, nccl.rank());
        assertEquals(2, nccl.identity().worldSize());
        assertEquals(8, nccl.devices().size());
        assertTrue(nccl.devices().stream().allMatch("NVIDIA A100-PG509-200"::equals));
        assertEquals(1_711_964_646_000_000_000L, nccl.baseNs());

        TraceBlocks sampled = read(resource("/hta/sampled_rank-1.json.gz"), TraceReader.Options.FIELDS);
        assertEquals(1, sampled.rank());
        assertEquals(128, sampled.identity().worldSize());
        assertEquals(0, sampled.baseNs(), "no baseTimeNanoseconds: every ts is absolute");
    }

    @Test
    void theDistributedRankOverridesTheCapturesAndTheBlocksMayFollowTheEvents() throws Exception {
        TraceBlocks b = walk("{\"traceEvents\":[],\"distributedInfo\":{\"rank\":5,\"world_size\":8,\"pg\":[1,{\"x\":2}]},"
                + "\"flagtrace_process\":{\"rank\":3,\"world_size\":4,\"host\":\"h\"},\"baseTimeNanoseconds\":-7}");
        assertEquals(5, b.rank());
        assertEquals(5, b.identity().rank());
        assertEquals(8, b.identity().worldSize());
        assertEquals("h", b.identity().host());
        assertEquals(-7, b.baseNs(), "a negative base is a time");
        assertEquals(-1, walk("{\"distributedInfo\":\"rank 5\",\"traceEvents\":[]}").rank(), "not an object: no rank");
        assertEquals(4611686018427387904L, walk("{\"baseTimeNanoseconds\":4611686018427387904,\"traceEvents\":[]}").baseNs());
    }

    @Test
    void theFlagtraceBlockKeepsItsNumbersAndNotesWithinBounds() throws Exception {
        StringBuilder json = new StringBuilder("{\"flagtrace\":{\"big\":18446744073709551616,\"ok\":-1,\"frac\":1.5,\"t\":true,"
                + "\"notes\":[\"a\",1,{\"n\":2},[\"b\"],\"c\"],\"more\":[");
        for (int i = 0; i < TraceLimits.MAX_NOTES + 5; i++) {
            json.append(i == 0 ? "" : ",").append("\"m").append(i).append('"');
        }
        json.append("],\"many\":{");
        for (int i = 0; i < TraceLimits.MAX_COUNTERS + 5; i++) {
            json.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":").append(i);
        }
        json.append("}},\"traceEvents\":[]}");
        TraceBlocks b = walk(json.toString());
        assertEquals(-1L, b.accounting().get("ok"));
        assertFalse(b.accounting().containsKey("big"), "a count beyond a long is no count");
        assertFalse(b.accounting().containsKey("frac") || b.accounting().containsKey("t"));
        assertEquals(TraceLimits.MAX_COUNTERS, b.accounting().size(), "at most MAX_COUNTERS numbers");
        assertEquals(TraceLimits.MAX_NOTES, b.notes().size(), "at most MAX_NOTES notes");
        assertEquals(List.of("a", "c", "m0"), b.notes().subList(0, 3), "strings of arrays only, nested ones skipped");
    }

    @Test
    void aBlockThatBreaksTheRulesIsRefusedInOneLine() {
        assertEquals("t.json is not a trace: its traceEvents is not an array", refused("{\"traceEvents\":5}"));
        assertEquals("t.json is not a trace: baseTimeNanoseconds is not an integer", refused("{\"baseTimeNanoseconds\":\"1\",\"traceEvents\":[]}"));
        assertEquals("t.json is not a trace: baseTimeNanoseconds is 4611686018427387905, beyond ±4611686018427387904",
                refused("{\"baseTimeNanoseconds\":4611686018427387905,\"traceEvents\":[]}"));
        assertEquals("t.json is not a trace: baseTimeNanoseconds is -100000000000000000000000000000, beyond ±4611686018427387904",
                refused("{\"baseTimeNanoseconds\":-100000000000000000000000000000,\"traceEvents\":[]}"));
        assertEquals("t.json: distributedInfo.rank must be a whole number from 0 to 2147483647, not -1",
                refused("{\"distributedInfo\":{\"rank\":-1},\"traceEvents\":[]}"));
        assertEquals("t.json: distributedInfo.world_size must be a whole number from 0 to 2147483647, not 2147483648",
                refused("{\"distributedInfo\":{\"world_size\":2147483648},\"traceEvents\":[]}"));
        assertEquals("t.json: distributedInfo.rank must be a whole number from 0 to 2147483647, not a string",
                refused("{\"distributedInfo\":{\"rank\":\"3\"},\"traceEvents\":[]}"));
        assertEquals("t.json: distributedInfo.rank must be a whole number from 0 to 2147483647, not null",
                refused("{\"distributedInfo\":{\"rank\":null},\"traceEvents\":[]}"));
        assertEquals("t.json: distributedInfo.rank must be a whole number from 0 to 2147483647, not a fraction",
                refused("{\"distributedInfo\":{\"rank\":1.5},\"traceEvents\":[]}"));
        assertEquals("t.json: distributedInfo.rank must be a whole number from 0 to 2147483647, not an object",
                refused("{\"distributedInfo\":{\"rank\":{}},\"traceEvents\":[]}"));
        assertEquals("t.json: distributedInfo.world_size must be a whole number from 0 to 2147483647, not an array",
                refused("{\"distributedInfo\":{\"world_size\":[2]},\"traceEvents\":[]}"));
        assertEquals("t.json is not a trace: its flagtrace block is not an object", refused("{\"flagtrace\":[],\"traceEvents\":[]}"));
        assertEquals("t.json is not a trace: its clock anchor 'start' reads 4611686018427387905 ns, beyond ±4611686018427387904 ns",
                refused("{\"flagtrace\":{\"clock_anchors\":[{\"at\":\"start\",\"realtime_ns\":1,\"monotonic_ns\":2,"
                        + "\"trace_ns\":4611686018427387905,\"bound_ns\":4}]},\"traceEvents\":[]}"));
        assertEquals("t.json is not a trace: its clock anchor 'stop' is bound to 3600000000001 ns, more than an hour",
                refused("{\"flagtrace\":{\"clock_anchors\":[{\"at\":\"stop\",\"realtime_ns\":1,\"monotonic_ns\":2,"
                        + "\"trace_ns\":3,\"bound_ns\":3600000000001}]},\"traceEvents\":[]}"));
        assertEquals("t.json is not a trace: its deviceProperties holds an array where a device object belongs",
                refused("{\"deviceProperties\":[{},[]],\"traceEvents\":[]}"));
        assertEquals("t.json is not a trace: its deviceProperties holds a number where a device object belongs",
                refused("{\"deviceProperties\":[0],\"traceEvents\":[]}"));
        // the events and the blocks name a value of the wrong kind by one rule (JsonTokenKind): a boolean, null, a fraction
        assertEquals("t.json is not a trace: traceEvents holds a boolean where an event object belongs (line 1)",
                refused("{\"traceEvents\":[{},true]}"));
        assertEquals("t.json is not a trace: traceEvents holds null where an event object belongs (line 1)",
                refused("{\"traceEvents\":[null]}"));
        assertEquals("t.json is not a trace: traceEvents holds a fraction where an event object belongs (line 1)",
                refused("{\"traceEvents\":[1.5]}"));
        assertEquals("t.json is not a trace: its deviceProperties holds a boolean where a device object belongs",
                refused("{\"deviceProperties\":[false],\"traceEvents\":[]}"));
        StringBuilder devices = new StringBuilder("{\"deviceProperties\":[{}");
        for (int i = 0; i < TraceLimits.MAX_DEVICES; i++) {
            devices.append(",{\"name\":\"d\"}");
        }
        assertEquals("t.json lists more than 1024 devices in deviceProperties", refused(devices + "],\"traceEvents\":[]}"));
    }

    @Test
    void aMergeBlockThatBreaksTheRulesIsRefusedInOneLine() {
        String input = "{\"slot\":0,\"rank\":0,\"pids\":{\"7\":1000}}";
        assertEquals(1, assertMerged("{\"pid_stride\":1000,\"inputs\":[" + input + "]}").size());
        assertEquals("t.json is not a merged trace: its flagtrace_merge block is not an object", refused("{\"flagtrace_merge\":1,\"traceEvents\":[]}"));
        assertEquals("t.json numbers its ranks' pids 1 apart; this version reads 1000 (flagtrace merge's)", refusedMerge("{\"pid_stride\":1}"));
        assertEquals("t.json numbers its ranks' pids ? apart; this version reads 1000 (flagtrace merge's)", refusedMerge("{\"pid_stride\":[1000]}"));
        assertEquals("t.json is not a merged trace: its flagtrace_merge block has no pid_stride", refusedMerge("{\"inputs\":[" + input + "]}"));
        assertEquals("t.json is not a merged trace: its flagtrace_merge inputs hold a string where an input object belongs",
                refusedMerge("{\"pid_stride\":1000,\"inputs\":[\"x\"]}"));
        assertEquals("t.json is not a merged trace: an input of its merge block has no slot", refusedMerge("{\"pid_stride\":1000,\"inputs\":[{\"rank\":0}]}"));
        assertEquals("t.json is not a merged trace: its merge block lists slot 0 twice",
                refusedMerge("{\"pid_stride\":1000,\"inputs\":[" + input + "," + input + "]}"));
        assertEquals("t.json: flagtrace_merge.inputs.slot must be below 65536, not 65536", refusedMerge("{\"pid_stride\":1000,\"inputs\":[{\"slot\":65536}]}"));
        assertEquals("t.json is not a merged trace: its merge block gives slot 1's pid 7 the pid 1000, which is not in that slot's 1000 pids",
                refusedMerge("{\"pid_stride\":1000,\"inputs\":[{\"slot\":1,\"pids\":{\"7\":1000}}]}"));
        assertEquals("t.json is not a merged trace: its merge block gives pid 7 no merged pid",
                refusedMerge("{\"pid_stride\":1000,\"inputs\":[{\"slot\":0,\"pids\":{\"7\":\"1000\"}}]}"));
        StringBuilder pids = new StringBuilder();
        for (int i = 0; i <= TraceLimits.MAX_PIDS_PER_INPUT; i++) {
            pids.append(i == 0 ? "" : ",").append("\"").append(i).append("\":").append(1000 + i % 999);
        }
        assertEquals("t.json lists more than 999 pids for one input in its merge block (a merge keeps at most that many)",
                refusedMerge("{\"pid_stride\":1000,\"inputs\":[{\"slot\":0,\"pids\":{" + pids + "}}]}"));
        // a null rank is no rank; a host past 1024 characters is no host
        TraceBlocks.MergeInput i = assertMerged("{\"pid_stride\":1000,\"inputs\":[{\"slot\":3,\"rank\":null,\"host\":\"" + "h".repeat(1025)
                + "\"}]}").get(3);
        assertEquals(new TraceBlocks.MergeInput(3, -1, null, Map.of()), i);
    }

    private static String refusedMerge(String block) {
        return refused("{\"flagtrace_merge\":" + block + ",\"traceEvents\":[]}");
    }

    private static Map<Integer, TraceBlocks.MergeInput> assertMerged(String block) {
        try {
            TraceBlocks b = walk("{\"flagtrace_merge\":" + block + ",\"traceEvents\":[]}");
            assertTrue(b.merged());
            return b.mergeInputs();
        } catch (IOException e) {
            throw new AssertionError(block, e);
        }
    }
}
