package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.ingest.OpsJsonlReader;
import org.flagos.trace.model.ClockAnchor;
import org.flagos.trace.model.ProcessFacts;
import org.flagos.trace.model.ProcessIdentity;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code flagtrace summary --ranks} over merges of the real H200 captures replayed as ranks, checked
 * against a recount from the merged trace's JSON tree. The captures have no training steps and no
 * collectives, so a rank's copy of them relabels, honestly said: the k-th {@code app::matmul_relu}
 * op becomes {@code ProfilerStep#k}, and one real kernel is renamed as an NCCL all-reduce (the
 * split-K GEMM of h200-app; h200-mt4's {@code relu} kernel, run by its main and worker threads).
 * Their kernels never run at once, so overlap is 0 here; RankTimesPartsTest has one that overlaps. Rank 2 is the h200-mt4 capture: the same steps with more work around them.
 */
class SummaryRanksTest {
    private static final String NCCL = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";

    @TempDir
    Path dir;

    private final CliRunner cli = new CliRunner();

    private Path rankTrace(int rank, String capture, String commKernel, boolean steps) throws Exception {
        Path ops = Captures.ops(capture);
        Path names = Captures.names(capture);
        if (steps) {
            String text = Files.readString(ops, StandardCharsets.UTF_8);
            StringBuilder out = new StringBuilder();
            int k = 0;
            for (String line : text.split("\n", -1)) {
                out.append(line.contains("\"name\":\"app::matmul_relu\"")
                        ? line.replace("app::matmul_relu", "ProfilerStep#" + ++k) : line).append(line.isEmpty() ? "" : "\n");
            }
            ops = Files.writeString(dir.resolve(rank + ".ops.jsonl"), out.toString());
        }
        if (commKernel != null) {
            String text = Files.readString(names, StandardCharsets.UTF_8);
            assertTrue(text.contains("\t" + commKernel + "\n"), commKernel);
            names = Files.writeString(dir.resolve(rank + ".names.tsv"), text.replace("\t" + commKernel + "\n", "\t" + NCCL + "\n"));
        }
        long real = 1_795_982_694_000_000_000L;
        ProcessFacts facts = new ProcessFacts(new ProcessIdentity(rank, 3, rank, 3, "host", 4000 + rank, "boot"),
                List.of(new ClockAnchor("start", real, 1_000 + rank, real, 100)));
        CaptureReplay.Request request = new CaptureReplay.Request(CaptureBytes.load(Captures.capture(capture)), capture,
                OpsJsonlReader.read(ops), KernelNameFile.read(names), TestDevices.h200(), Map.of(), capture,
                CaptureReplay.IN_FILE_ORDER, 1 << 12).withProcess(facts);
        Path out = dir.resolve("rank" + rank + ".json");
        Files.write(out, TraceJson.replay(request).bytes());
        return out;
    }

    private Path merge(boolean steps) throws Exception {
        String gemm = "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4_execute_split_k_kernel__5x_cublas";
        Path merged = dir.resolve("merged.json");
        assertEquals(0, cli.run("merge", rankTrace(0, "h200-app", gemm, steps).toString(), rankTrace(1, "h200-app", gemm, steps).toString(),
                rankTrace(2, "h200-mt4", "_Z4reluPfi", steps).toString(), "-o", merged.toString()), cli.stderr());
        return merged;
    }

    @Test
    void stepsStragglerAndDeviceSplitMatchARecountOfTheMergedTrace() throws Exception {
        Path merged = merge(true);
        Path json = dir.resolve("ranks.json");
        assertEquals(0, cli.run("summary", "--ranks", merged.toString(), "--json", json.toString()), cli.stderr());
        String table = cli.stdout();
        JsonNode got = TraceJson.MAPPER.readTree(json.toFile());
        Map<String, Recount> want = recount(TraceJson.MAPPER.readTree(merged.toFile()));
        assertEquals(3, want.size());

        JsonNode steps = got.get("steps");
        assertEquals(5, steps.size(), table);
        boolean rank2Slowest = false;
        for (JsonNode s : steps) {
            String step = s.get("step").asText();
            String slowest = null;
            long slowestNs = -1;
            List<Long> times = new ArrayList<>();
            for (Map.Entry<String, Recount> e : want.entrySet()) {
                long t = e.getValue().steps.get(step);
                times.add(t);
                if (t > slowestNs) {
                    slowestNs = t;
                    slowest = e.getKey();
                }
            }
            times.sort(null);
            assertEquals(slowest, s.get("slowest_rank").asText(), step + "\n" + table);
            assertEquals(slowestNs / 1e3, s.get("slowest_us").asDouble(), 1e-3, step);
            assertEquals(times.get(1) / 1e3, s.get("median_us").asDouble(), 1e-3, step);
            assertEquals((slowestNs - times.get(1)) / 1e3, s.get("over_median_us").asDouble(), 1e-3, step);
            assertTrue(table.contains(step), table);
            rank2Slowest |= slowest.equals("rank 2");
        }
        assertTrue(rank2Slowest, "the h200-mt4 rank is the slowest in some step\n" + table);

        for (JsonNode r : got.get("ranks")) {
            Recount w = want.get(r.get("rank").asText());
            double span = r.get("device_span_us").asDouble();
            assertEquals(w.span() / 1e3, span, 1e-3);
            assertEquals(w.comm / 1e3, r.get("communication_us").asDouble(), 1e-3);
            assertEquals((w.commOrCompute - w.comm) / 1e3, r.get("computation_us").asDouble(), 1e-3);
            assertEquals((w.busy - w.commOrCompute) / 1e3, r.get("memory_us").asDouble(), 1e-3);
            assertEquals((w.span() - w.busy) / 1e3, r.get("idle_us").asDouble(), 1e-3);
            assertEquals((w.comm + w.compute - w.commOrCompute) / 1e3, r.get("overlap_us").asDouble(), 1e-3);
            double sum = r.get("computation_us").asDouble() + r.get("communication_us").asDouble() + r.get("memory_us").asDouble()
                    + r.get("idle_us").asDouble();
            assertEquals(span, sum, 1e-3, "the split sums to the span");
            double overlap = r.get("overlap_us").asDouble();
            assertTrue(overlap >= 0 && overlap <= Math.min(r.get("communication_us").asDouble(), r.get("computation_total_us").asDouble()));
            assertTrue(r.get("communication_us").asDouble() > 0 && r.get("computation_us").asDouble() > 0
                    && r.get("memory_us").asDouble() > 0, r.toString());
            assertEquals(5, r.get("step_us").size());
            assertTrue(table.contains(r.get("rank").asText() + " "), table);
        }
    }

    @Test
    void withoutStepsOneWholeTraceRow() throws Exception {
        Path merged = merge(false);
        assertEquals(0, cli.run("summary", "--ranks", merged.toString()), cli.stderr());
        assertTrue(cli.stdout().contains("whole trace"), cli.stdout());
        assertFalse(cli.stdout().contains("ProfilerStep#"), cli.stdout());
        assertTrue(cli.stdout().lines().allMatch(l -> l.length() <= 100), cli.stdout());
    }

    @Test
    void aTraceThatIsNoMergeIsOneLineAndOpTableOptionsAreRefused() throws Exception {
        Path one = rankTrace(0, "h200-app", null, false);
        assertEquals(ExitCodes.FAILED, cli.run("summary", "--ranks", one.toString()));
        assertTrue(cli.stderr().contains("is not a merged trace"), cli.stderr());
        assertEquals(1, cli.stderr().strip().lines().count(), cli.stderr());
        assertEquals(ExitCodes.USAGE, cli.run("summary", "--ranks", one.toString(), "--limit", "3"));
        Path cut = Files.writeString(dir.resolve("cut.json"), "{\"traceEvents\":[{\"ph\":\"X\"");
        assertEquals(ExitCodes.FAILED, cli.run("summary", "--ranks", cut.toString()));
        assertEquals("flagtrace: error: " + cut + " ends in the middle of its JSON (truncated?)", cli.stderr().strip());
    }

    /** One rank counted from the JSON tree: step durations and unions of device intervals per kind. */
    private static final class Recount {
        final Map<String, Long> steps = new HashMap<>();
        final List<long[]> comm0 = new ArrayList<>();
        final List<long[]> compute0 = new ArrayList<>();
        final List<long[]> memory0 = new ArrayList<>();
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        long comm;
        long compute;
        long commOrCompute;
        long busy;

        long span() {
            return last - first;
        }

        void finish() {
            comm = union(comm0);
            compute = union(compute0);
            List<long[]> both = new ArrayList<>(comm0);
            both.addAll(compute0);
            commOrCompute = union(both);
            both.addAll(memory0);
            busy = union(both);
        }

        private static long union(List<long[]> intervals) {
            List<long[]> s = new ArrayList<>(intervals);
            s.sort((a, b) -> Long.compare(a[0], b[0]));
            long total = 0;
            long curStart = Long.MIN_VALUE;
            long curEnd = Long.MIN_VALUE;
            for (long[] iv : s) {
                if (iv[0] > curEnd) {
                    total += curEnd - curStart;
                    curStart = iv[0];
                    curEnd = iv[1];
                } else {
                    curEnd = Math.max(curEnd, iv[1]);
                }
            }
            return total + (curEnd - curStart);
        }
    }

    /** Ranks by the labels of their processes ("rank R · ..."), not by pid arithmetic. */
    private static Map<String, Recount> recount(JsonNode trace) {
        Map<Long, String> rankOfPid = new HashMap<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("M".equals(e.path("ph").asText()) && "process_name".equals(e.path("name").asText())) {
                String label = e.get("args").get("name").asText();
                rankOfPid.put(e.get("pid").asLong(), label.substring(0, label.indexOf(" \u00b7 ")));
            }
        }
        Map<String, Recount> out = new TreeMap<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if (!"X".equals(e.path("ph").asText())) {
                continue;
            }
            Recount r = out.computeIfAbsent(rankOfPid.get(e.get("pid").asLong()), k -> new Recount());
            String cat = e.path("cat").asText();
            String name = e.get("name").asText();
            long start = nanos(e.get("ts"));
            long end = start + nanos(e.get("dur"));
            if (name.startsWith("ProfilerStep#") && (cat.equals("cpu_op") || cat.equals("user_annotation"))) {
                r.steps.put(name, end - start);
            }
            List<long[]> into = cat.equals("kernel") ? (name.equals(NCCL) ? r.comm0 : r.compute0)
                    : cat.equals("gpu_memcpy") || cat.equals("gpu_memset") ? r.memory0 : null;
            if (into != null) {
                into.add(new long[] {start, end});
                r.first = Math.min(r.first, start);
                r.last = Math.max(r.last, end);
            }
        }
        out.values().forEach(Recount::finish);
        return out;
    }

    private static long nanos(JsonNode ts) {
        return new java.math.BigDecimal(ts.asText()).movePointRight(3).setScale(0, java.math.RoundingMode.UNNECESSARY).longValueExact();
    }
}
