package org.flagos.trace.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.BiPredicate;
import java.util.zip.GZIPInputStream;
import org.flagos.trace.sql.CollectiveKernels;
import org.flagos.trace.tracefile.TraceFormatException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clock alignment by shared collectives ({@link CollectiveAlignment}, and {@link TraceMerge} using it), on HTA's
 * real traces (src/test/resources/hta/README.md): the two real ranks of {@code sampled_rank-0/1}, and ranks made
 * from the real rank 0 of {@code nccl_data} (15 AllReduce and 6 Broadcast kernels of process group 0), each rank's
 * clock moved by a known amount and each of its events by up to a few microseconds of jitter, without anchors. The
 * merge must find each offset within the residual it states.
 */
class CollectiveAlignmentTest {
    private static final Path HTA = Path.of("src/test/resources/hta");
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private static JsonNode read(Path path) throws Exception {
        try (InputStream in = new GZIPInputStream(Files.newInputStream(path))) {
            return JSON.readTree(in);
        }
    }

    private static boolean collective(JsonNode e) {
        return "kernel".equals(e.path("cat").asText()) && CollectiveKernels.isCommunication(e.path("name").asText());
    }

    /**
     * {@code source} as rank {@code rank}: every event's time moved by {@code shiftNs} (the clock of another host), each
     * event by a uniform jitter of up to ±{@code jitterNs} (seeded by the rank), {@code keep} deciding which events stay
     * (it may change an event's args too).
     */
    private Path derive(Path source, int rank, long shiftNs, long jitterNs, BiPredicate<Integer, ObjectNode> keep) throws Exception {
        ObjectNode trace = (ObjectNode) read(source);
        ObjectNode who = (ObjectNode) trace.get("distributedInfo");
        who.put("rank", rank);
        if (who.path("world_size").asInt() <= rank) {
            who.put("world_size", 4);
        }
        Random random = new Random(rank * 7919L + 1);
        ArrayNode events = JSON.createArrayNode();
        int collectives = 0;
        for (JsonNode e : trace.get("traceEvents")) {
            ObjectNode event = (ObjectNode) e;
            int n = collective(event) ? collectives++ : -1;
            if (!keep.test(n, event)) {
                continue;
            }
            if (event.has("ts") && !"M".equals(event.path("ph").asText())) {
                long ns = event.get("ts").decimalValue().movePointRight(3).setScale(0, java.math.RoundingMode.HALF_EVEN).longValueExact();
                long jitter = jitterNs == 0 ? 0 : (long) ((random.nextDouble() * 2 - 1) * jitterNs);
                event.put("ts", new BigDecimal(Timestamps.micros(ns + shiftNs + jitter)));
            }
            events.add(event);
        }
        trace.set("traceEvents", events);
        Path out = dir.resolve("rank" + rank + ".json");
        JSON.writeValue(out.toFile(), trace);
        return out;
    }

    private Path derive(int rank, long shiftNs, long jitterNs) throws Exception {
        return derive(HTA.resolve("nccl_data.device.json.gz"), rank, shiftNs, jitterNs, (n, e) -> true);
    }

    private static JsonNode merge(List<Path> traces, boolean assumeAligned) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TraceMerge.run(traces, out, ClockChoice.AUTO, assumeAligned);
        return JSON.readTree(out.toByteArray());
    }

    /** Asserts that input {@code slot} of the merge was put at {@code truthNs} within the residual it states, which is under {@code jitterNs}. */
    private static void recovered(JsonNode merged, int slot, long truthNs, long jitterNs, String against) {
        JsonNode in = merged.get("flagtrace_merge").get("inputs").get(slot);
        assertEquals("collectives", in.get("clock").asText(), in.toString());
        long offset = in.get("offset_ns").asLong();
        long residual = in.get("collectives").get("residual_ns").asLong();
        assertTrue(Math.abs(offset - truthNs) <= residual, "slot " + slot + ": offset " + offset + " ns, truth " + truthNs
                + " ns, residual " + residual + " ns");
        long median = in.get("collectives").get("median_residual_ns").asLong();
        assertTrue(median > 0 && median < residual && residual <= 4 * jitterNs, "residuals of jitter: " + in);
        assertEquals(in.get("bound_ns").asLong(), residual);
        assertEquals(against, in.get("collectives").get("against").asText());
    }

    @Test
    void fourRanksOnClocksSecondsApartAreFoundWithinTheirResiduals() throws Exception {
        long jitter = 3_000;
        long[] shift = {0, 2_500_000_123L, -734_512_007L, 41_000_001L};
        List<Path> ranks = new ArrayList<>();
        for (int r = 3; r >= 0; r--) { // given in any order: the lowest rank is the reference
            ranks.add(derive(r, shift[r], jitter));
        }
        JsonNode merged = merge(ranks, false);
        JsonNode block = merged.get("flagtrace_merge");
        assertEquals("collectives", block.get("clock").asText());
        assertEquals(0, block.get("reference_rank").asInt());
        assertEquals("reference", block.get("inputs").get(0).get("clock").asText());
        for (int r = 1; r < 4; r++) {
            recovered(merged, r, -shift[r], jitter, "rank 0");
            JsonNode c = block.get("inputs").get(r).get("collectives");
            assertEquals(21, c.get("matched").asInt(), "15 AllReduce and 6 Broadcast, all of group 0");
            assertEquals(2, c.get("kinds").asInt());
        }
        assertTrue(block.get("bound_means").asText().contains("collectives: the residual, the largest deviation"), block.toString());
        // on the merged clock, every rank's n-th AllReduce ends within the stated bound of rank 0's
        Map<Long, List<Long>> ends = new HashMap<>();
        for (JsonNode e : merged.get("traceEvents")) {
            if (collective(e)) {
                long pid = e.get("pid").asLong();
                ends.computeIfAbsent(pid / InputCopy.PID_STRIDE, k -> new ArrayList<>())
                        .add(e.get("ts").decimalValue().add(e.get("dur").decimalValue()).movePointRight(3).longValue());
            }
        }
        for (int r = 1; r < 4; r++) {
            List<Long> mine = ends.get((long) r + 1);
            List<Long> theirs = ends.get(1L);
            mine.sort(null);
            theirs.sort(null);
            long bound = block.get("inputs").get(r).get("bound_ns").asLong();
            for (int i = 0; i < theirs.size(); i++) {
                assertTrue(Math.abs(mine.get(i) - theirs.get(i)) <= bound + 1, "rank " + r + " end " + i);
            }
        }
    }

    @Test
    void aProcessGroupOfSomeRanksIsMatchedWithinItselfAndChainsTheRanksItHolds() throws Exception {
        long jitter = 2_000;
        long[] shift = {0, -1_000_000_000L, 3_000_000_000L, 7_000_017L};
        // the 6 Broadcasts stay group 0 (every rank); the 15 AllReduces are group 4 ([0, 1]) on ranks 0 and 1 and group 5
        // ([2, 3]) on ranks 2 and 3, which ran theirs 1.5 ms later; rank 3 has no Broadcast: it shares only group 5, with rank 2
        List<Path> ranks = new ArrayList<>();
        for (int r = 0; r < 4; r++) {
            int rank = r;
            ranks.add(derive(HTA.resolve("nccl_data.device.json.gz"), r, shift[r], jitter, (n, e) -> {
                if (n < 0) {
                    return true;
                }
                ObjectNode args = (ObjectNode) e.get("args");
                if (e.get("name").asText().contains("AllReduce")) {
                    args.put("Process Group Name", rank < 2 ? "4" : "5");
                    if (rank >= 2) {
                        e.put("ts", e.get("ts").decimalValue().add(new BigDecimal("1500")));
                    }
                    return true;
                }
                return rank != 3;
            }));
        }
        JsonNode merged = merge(ranks, false);
        recovered(merged, 1, -shift[1], jitter, "rank 0");
        JsonNode two = merged.get("flagtrace_merge").get("inputs").get(2);
        assertEquals(6, two.get("collectives").get("matched").asInt(), "rank 2 shares the Broadcasts with rank 0, not group 4's AllReduces");
        recovered(merged, 2, -shift[2], jitter, "rank 0");
        JsonNode three = merged.get("flagtrace_merge").get("inputs").get(3);
        assertEquals(15, three.get("collectives").get("matched").asInt(), three.toString());
        assertEquals("rank 2", three.get("collectives").get("against").asText(), "through rank 2: it shares nothing with rank 0 or 1");
        long offset = three.get("offset_ns").asLong();
        long residual = three.get("collectives").get("residual_ns").asLong();
        assertTrue(Math.abs(offset + shift[3]) <= residual && residual <= 8 * jitter, three.toString());
        assertTrue(three.get("bound_ns").asLong() >= two.get("bound_ns").asLong(), "the chain's bound holds rank 2's");
    }

    @Test
    void aRunThatBeganLateIsMatchedWhereItFits() throws Exception {
        long jitter = 1_000;
        Path rank0 = derive(0, 0, jitter);
        // rank 1's profiler began after its first two AllReduces and one Broadcast ended: the n-th instances no longer pair
        List<Integer> first = firstOfEachKind();
        Path rank1 = derive(HTA.resolve("nccl_data.device.json.gz"), 1, 123_456_789L, jitter, (n, e) -> n < 0 || !first.contains(n));
        JsonNode merged = merge(List.of(rank0, rank1), false);
        recovered(merged, 1, -123_456_789L, jitter, "rank 0");
        assertEquals(21 - 3, merged.get("flagtrace_merge").get("inputs").get(1).get("collectives").get("matched").asInt());
    }

    /** The numbers (in file order) of the collective kernels that are the first two AllReduces and the first Broadcast in time. */
    private static List<Integer> firstOfEachKind() throws Exception {
        List<double[]> allReduce = new ArrayList<>();
        List<double[]> broadcast = new ArrayList<>();
        int i = 0;
        for (JsonNode e : read(HTA.resolve("nccl_data.device.json.gz")).get("traceEvents")) {
            if (collective(e)) {
                (e.get("name").asText().contains("AllReduce") ? allReduce : broadcast).add(new double[] {e.get("ts").asDouble(), i++});
            }
        }
        allReduce.sort((a, b) -> Double.compare(a[0], b[0]));
        broadcast.sort((a, b) -> Double.compare(a[0], b[0]));
        return List.of((int) allReduce.get(0)[1], (int) allReduce.get(1)[1], (int) broadcast.get(0)[1]);
    }

    @Test
    void aRankWithoutCollectivesIsRefusedUnlessAssumedAligned() throws Exception {
        Path rank0 = derive(0, 0, 1_000);
        Path rank1 = derive(1, 5_000_000_000L, 1_000);
        Path cpuOnly = HTA.resolve("cpu_only_rank-34.json.gz"); // HTA's, gloo on the CPU: no kernel at all
        TraceFormatException e = assertThrows(TraceFormatException.class, () -> merge(List.of(rank0, rank1, cpuOnly), false));
        assertTrue(e.getMessage().startsWith(cpuOnly + " has no clock anchors (") && e.getMessage().contains("its 0 collective kernels")
                && e.getMessage().contains("--assume-aligned merges such traces with offset 0"), e.getMessage());
        JsonNode merged = merge(List.of(rank0, rank1, cpuOnly), true);
        JsonNode inputs = merged.get("flagtrace_merge").get("inputs");
        recovered(merged, 1, -5_000_000_000L, 1_000, "rank 0");
        assertEquals("assumed", inputs.get(2).get("clock").asText());
        assertEquals(34, inputs.get(2).get("rank").asInt());
        assertEquals(0, inputs.get(2).get("offset_ns").asLong());
        assertTrue(inputs.get(2).get("bound_ns").isNull());
        assertEquals("mixed", merged.get("flagtrace_merge").get("clock").asText());
        assertTrue(merged.get("flagtrace_merge").get("bound_ns").isNull(), "an assumed trace: no bound for the merge");
    }

    @Test
    void twoRealRanksOfHtaStateAResidualThatCoversWhatTheyShare() throws Exception {
        // HTA's sampled ranks 0 and 1 of a 128-rank job: 10 SendRecv kernels each, without a process group name, of
        // which some pair with the other rank's and some with other ranks' (not in the set)
        TraceFacts r0 = TraceFacts.read(HTA.resolve("sampled_rank-0.json.gz"));
        TraceFacts r1 = TraceFacts.read(HTA.resolve("sampled_rank-1.json.gz"));
        assertEquals(10, r0.collectives().count());
        CollectiveAlignment.Estimate plain = CollectiveAlignment.estimate(r0.collectives(), r0.baseNs(), r1.collectives(), r1.baseNs());
        assertNotNull(plain);
        assertEquals(10, plain.matched());
        long shift = 86_400_000_000_000L + 17; // a day and 17 ns ahead
        Path moved = derive(HTA.resolve("sampled_rank-1.json.gz"), 1, shift, 0, (n, e) -> true);
        TraceFacts m = TraceFacts.read(moved);
        CollectiveAlignment.Estimate found = CollectiveAlignment.estimate(r0.collectives(), r0.baseNs(), m.collectives(), m.baseNs());
        assertEquals(plain.offsetNs() - shift, found.offsetNs(), "the estimate moves with the clock, exactly");
        assertEquals(plain.residualNs(), found.residualNs());
        assertEquals(plain.medianResidualNs(), found.medianResidualNs());
        assertTrue(Math.abs(plain.offsetNs()) <= plain.medianResidualNs(), "0 within even the median residual, " + plain);
    }

    @Test
    void fewerThanThreeSharedEndsSayNothing() throws Exception {
        TraceFacts r0 = TraceFacts.read(derive(0, 0, 0));
        Path one = derive(HTA.resolve("nccl_data.device.json.gz"), 1, 0, 0, (n, e) -> n < 2);
        TraceFacts r1 = TraceFacts.read(one);
        assertEquals(2, r1.collectives().count());
        assertNull(CollectiveAlignment.estimate(r0.collectives(), r0.baseNs(), r1.collectives(), r1.baseNs()));
    }

    @Test
    void theMedian() {
        assertEquals(2, CollectiveAlignment.median(new long[] {1, 2, 100}));
        assertEquals(5, CollectiveAlignment.median(new long[] {0, 4, 6, 1000}), "half way between the middle two");
        assertEquals(-4, CollectiveAlignment.median(new long[] {-4, -3}), "rounded toward the lower");
    }
}
