package org.flagos.trace.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
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
 * A merged trace of many ranks built from the real h200-app capture: each rank is the capture
 * replayed with its own rank, host and clock (anchors as a host of its own would record them, its
 * trace clock shifted from real time by a different offset per rank), its five
 * {@code app::matmul_relu} ops relabelled {@code ProfilerStep#1..5} and its split-K GEMM kernel
 * renamed as an NCCL all-reduce (the capture has no steps and no collectives, honestly said). Each
 * rank's steps are then stretched a little (0-22 us, different per rank and step, so that ranks
 * differ), and one straggler rank's step {@link #STRAGGLER_STEP} by {@link #STRAGGLER_NS} more.
 * A stretch of step k delays everything after its end by the same time: the step op and its
 * enclosing spans get longer, the device work inside it does not, so the rank idles meanwhile.
 */
public final class SyntheticRanks {
    /** The step the straggler is slow in. */
    public static final int STRAGGLER_STEP = 3;
    /** How much longer the straggler's step is than it would be, ns. */
    public static final long STRAGGLER_NS = 2_000_000;
    /** The kernel name every rank's communication kernel gets. */
    public static final String NCCL = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";

    private static final String CAPTURE = "h200-app";
    private static final String GEMM = "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4_execute_split_k_kernel__5x_cublas";
    private static final Set<String> STRETCHED = Set.of("cpu_op", "user_annotation", "python_function", "Trace");
    private static final ObjectMapper EXACT = new ObjectMapper()
            .setNodeFactory(JsonNodeFactory.withExactBigDecimals(true))
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN);

    private SyntheticRanks() {
    }

    /** The stretch of {@code rank}'s step {@code step}, ns (the straggler's extra included). */
    public static long stretchNs(int rank, int step, int straggler) {
        long jitter = ((rank * 37L + step * 11L) % 23) * 1_000;
        return jitter + (rank == straggler && step == STRAGGLER_STEP ? STRAGGLER_NS : 0);
    }

    /** Builds {@code ranks} rank traces in {@code dir} and merges them; returns the merged trace. */
    public static Path merged(Path dir, int ranks, int straggler) throws Exception {
        return merged(dir, ranks, straggler, true);
    }

    /**
     * As {@link #merged(Path, int, int)}; without {@code steps} the ops keep their names and nothing is
     * stretched (no rank has a step).
     */
    public static Path merged(Path dir, int ranks, int straggler, boolean steps) throws Exception {
        List<String> args = new ArrayList<>(List.of("merge"));
        for (Path trace : rankTraces(dir, ranks, straggler, steps)) {
            args.add(trace.toString());
        }
        Path merged = dir.resolve("merged.json");
        args.addAll(List.of("-o", merged.toString()));
        CliRunner cli = new CliRunner();
        if (cli.run(args.toArray(String[]::new)) != 0) {
            throw new IllegalStateException("merge failed: " + cli.stderr());
        }
        return merged;
    }

    /**
     * The rank traces {@link #merged} merges, unmerged: {@code dir/rankN.json} for N in 0..ranks-1, each with
     * its own rank, host and clock; returns them in rank order.
     */
    public static List<Path> rankTraces(Path dir, int ranks, int straggler, boolean steps) throws Exception {
        Path ops = dir.resolve("steps.ops.jsonl");
        StringBuilder relabelled = new StringBuilder();
        int k = 0;
        for (String line : Files.readString(Captures.ops(CAPTURE), StandardCharsets.UTF_8).split("\n")) {
            relabelled.append(steps && line.contains("\"name\":\"app::matmul_relu\"")
                    ? line.replace("app::matmul_relu", "ProfilerStep#" + ++k) : line).append('\n');
        }
        Files.writeString(ops, relabelled);
        String names = Files.readString(Captures.names(CAPTURE), StandardCharsets.UTF_8);
        if (!names.contains("\t" + GEMM + "\n")) {
            throw new IllegalStateException("the capture's names lost " + GEMM);
        }
        Path nccl = Files.writeString(dir.resolve("nccl.names.tsv"), names.replace("\t" + GEMM + "\n", "\t" + NCCL + "\n"));
        List<Path> traces = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            long real = 1_795_982_694_000_000_000L;
            long offset = (r % 2 == 0 ? 1 : -1) * (r * 1_000_003_007L + 37_000);
            ProcessFacts facts = new ProcessFacts(new ProcessIdentity(r, ranks, r % 8, 8, "node" + r / 8, 4000 + r, "boot" + r / 8),
                    List.of(new ClockAnchor("start", real, 1_000 + r, real + offset, 500)));
            CaptureReplay.Request request = CaptureReplay.Request.of(CaptureBytes.load(Captures.capture(CAPTURE)), CAPTURE)
                    .ops(OpsJsonlReader.read(ops)).kernelNames(KernelNameFile.read(nccl)).devices(TestDevices.h200())
                    .ringSize(1 << 12).build()
                    .withProcess(facts);
            JsonNode trace = EXACT.readTree(TraceJson.replay(request).bytes());
            for (int step = 1; steps && step <= 5; step++) {
                stretch(trace, step, stretchNs(r, step, straggler));
            }
            Path out = dir.resolve("rank" + r + ".json");
            EXACT.writeValue(out.toFile(), trace);
            traces.add(out);
        }
        return traces;
    }

    /**
     * Builds the merged trace of {@link #merged} and its events table ({@code flagtrace tables}, docs/tables.md);
     * returns the table, {@code dir/events.parquet}, beside {@code dir/merged.json}.
     */
    public static Path events(Path dir, int ranks, int straggler) throws Exception {
        return events(dir, ranks, straggler, true);
    }

    /** As {@link #events(Path, int, int)}, with or without steps ({@link #merged(Path, int, int, boolean)}). */
    public static Path events(Path dir, int ranks, int straggler, boolean steps) throws Exception {
        Path merged = merged(dir, ranks, straggler, steps);
        Path events = dir.resolve("events.parquet");
        CliRunner cli = new CliRunner();
        if (cli.run("tables", merged.toString(), "-o", events.toString()) != 0) {
            throw new IllegalStateException("tables failed: " + cli.stderr());
        }
        return events;
    }

    /** {@code flagtrace tables TRACE -o OUT} (the events table of any trace file, docs/tables.md); returns OUT. */
    public static Path tables(Path trace, Path out) {
        CliRunner cli = new CliRunner();
        if (cli.run("tables", trace.toString(), "-o", out.toString()) != 0) {
            throw new IllegalStateException("tables failed: " + cli.stderr());
        }
        return out;
    }

    /**
     * After {@link #events}: the first {@code ranks} rank traces in {@code dir} written by separate
     * {@code flagtrace tables --partition-by-rank} runs into one folder, {@code dir/parts}
     * ({@code parts/events/rank=N/part-rankN.parquet}, docs/tables.md); returns the folder.
     */
    public static Path partitioned(Path dir, int ranks) {
        Path parts = dir.resolve("parts");
        CliRunner cli = new CliRunner();
        for (int r = 0; r < ranks; r++) {
            if (cli.run("tables", dir.resolve("rank" + r + ".json").toString(), "-o", parts.toString(), "--partition-by-rank") != 0) {
                throw new IllegalStateException("tables --partition-by-rank failed: " + cli.stderr());
            }
        }
        return parts;
    }

    /** Delays everything after step {@code step}'s op by {@code ns}, the host spans across its end growing by as much. */
    private static void stretch(JsonNode trace, int step, long ns) {
        if (ns == 0) {
            return;
        }
        BigDecimal end = null;
        for (JsonNode e : trace.get("traceEvents")) {
            if ("cpu_op".equals(e.path("cat").asText()) && ("ProfilerStep#" + step).equals(e.path("name").asText())) {
                end = e.get("ts").decimalValue().add(e.get("dur").decimalValue());
            }
        }
        if (end == null) {
            throw new IllegalStateException("no ProfilerStep#" + step);
        }
        BigDecimal us = BigDecimal.valueOf(ns).movePointLeft(3);
        for (JsonNode node : trace.get("traceEvents")) {
            ObjectNode e = (ObjectNode) node;
            if (!e.path("ts").isNumber()) {
                continue;
            }
            BigDecimal ts = e.get("ts").decimalValue();
            if (ts.compareTo(end) >= 0) {
                e.set("ts", DecimalNode.valueOf(ts.add(us)));
            } else if (e.path("dur").isNumber() && STRETCHED.contains(e.path("cat").asText())
                    && ts.add(e.get("dur").decimalValue()).compareTo(end) >= 0) {
                e.set("dur", DecimalNode.valueOf(e.get("dur").decimalValue().add(us)));
            }
        }
    }
}
