package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
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

/**
 * A merged trace of real H200 captures replayed as three ranks, and a recount of it from its JSON
 * tree. The captures have no training steps and no collectives, so a rank's copy of them
 * relabels, honestly said: the k-th {@code app::matmul_relu} op becomes {@code ProfilerStep#k}, and
 * one real kernel is renamed as an NCCL all-reduce (the split-K GEMM of h200-app; h200-mt4's
 * {@code relu} kernel, run by its main and worker threads). Rank 2 is the h200-mt4 capture: the
 * same steps with more work around them. Their kernels never run at once, so overlap is 0.
 */
final class MergedRanks {
    static final String NCCL = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";

    private MergedRanks() {
    }

    static Path rankTrace(Path dir, int rank, String capture, String commKernel, boolean steps) throws Exception {
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
        CaptureReplay.Request request = CaptureReplay.Request.of(CaptureBytes.load(Captures.capture(capture)), capture)
                .ops(OpsJsonlReader.read(ops)).kernelNames(KernelNameFile.read(names)).devices(TestDevices.h200())
                .ringSize(1 << 12).build().withProcess(facts);
        Path out = dir.resolve("rank" + rank + ".json");
        Files.write(out, TraceJson.replay(request).bytes());
        return out;
    }

    static Path merge(Path dir, CliRunner cli, boolean steps) throws Exception {
        String gemm = "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4_execute_split_k_kernel__5x_cublas";
        Path merged = dir.resolve("merged.json");
        assertEquals(0, cli.run("merge", rankTrace(dir, 0, "h200-app", gemm, steps).toString(), rankTrace(dir, 1, "h200-app", gemm, steps).toString(),
                rankTrace(dir, 2, "h200-mt4", "_Z4reluPfi", steps).toString(), "-o", merged.toString()), cli.stderr());
        return merged;
    }

    /** One rank counted from the JSON tree: step durations and unions of device intervals per kind. */
    static final class Recount {
        final Map<String, Long> steps = new HashMap<>();
        final List<long[]> comm0 = new ArrayList<>();
        final List<long[]> compute0 = new ArrayList<>();
        final List<long[]> memory0 = new ArrayList<>();
        /** Per row key ("h " + op name, "d " + device name): calls and self device ns, as key_averages counts them. */
        final Map<String, long[]> ops = new TreeMap<>();
        final Map<Long, String> opOfExternal = new HashMap<>();
        final List<Object[]> linked = new ArrayList<>();
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
            for (Object[] d : linked) { // device work is the self device time of the op of its External id
                String op = opOfExternal.get((Long) d[0]);
                if (op != null) {
                    ops.computeIfAbsent("h " + op, k -> new long[2])[1] += (Long) d[1];
                }
            }
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
    static Map<String, Recount> recount(JsonNode trace) {
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
            JsonNode external = e.path("args").get("External id");
            if (cat.endsWith("_runtime") || cat.endsWith("_driver") || cat.equals("overhead")) {
                r.ops.computeIfAbsent("h " + name, k -> new long[2])[0]++; // a row of calls without device time
            }
            if (cat.equals("cpu_op") || cat.equals("user_annotation")) {
                r.ops.computeIfAbsent("h " + name, k -> new long[2])[0]++;
                if (external != null) {
                    r.opOfExternal.put(external.asLong(), name);
                }
            }
            List<long[]> into = cat.equals("kernel") ? (name.equals(NCCL) ? r.comm0 : r.compute0)
                    : cat.equals("gpu_memcpy") || cat.equals("gpu_memset") ? r.memory0 : null;
            if (into != null) {
                long[] row = r.ops.computeIfAbsent("d " + name, k -> new long[2]);
                row[0]++;
                row[1] += end - start;
                if (external != null) {
                    r.linked.add(new Object[] {external.asLong(), end - start});
                }
                into.add(new long[] {start, end});
                r.first = Math.min(r.first, start);
                r.last = Math.max(r.last, end);
            }
        }
        out.values().forEach(Recount::finish);
        return out;
    }

    static long nanos(JsonNode ts) {
        return new java.math.BigDecimal(ts.asText()).movePointRight(3).setScale(0, java.math.RoundingMode.UNNECESSARY).longValueExact();
    }
}
