package org.flagos.trace.benchmarks;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.IntStream;

/**
 * A distributed training job of N ranks, written as one torch-format trace per rank (issue 32 item 6):
 * every figure of it is known, so the analyses can be held to it at any scale.
 *
 * <p>Each step of each rank: {@code kernels} compute ops ({@code aten::mm}, each a {@code cudaLaunchKernel}
 * and a GEMM kernel on stream 7, flow arrow paired), then an all-reduce ({@code c10d::allreduce_}, its
 * NCCL kernel with torch's collective args on the same stream, so that stream order is its dependency on
 * the compute: the analyses do not follow CUDA-event waits between streams yet), then a
 * {@code cudaStreamSynchronize} (its runtime call and CUPTI's {@code cuda_sync} record) that ends the step
 * ({@code ProfilerStep#N}). The collective is the job's one coupling: the NCCL kernel of
 * step s starts on a rank when its compute is done, and ends on every rank at the last rank's start
 * plus the transfer time (plus up to {@link #JITTER_NS} of network jitter per rank). So:
 * <ul>
 *   <li>a <b>straggler</b> (compute {@code stragglerFactor} times slower) starts every collective last;
 *       every other rank waits in its collective for it, and the job's critical path runs through the
 *       straggler's compute kernels;</li>
 *   <li>a <b>slow link</b> makes every collective {@code slowLinkFactor} times longer on every rank
 *       (a ring is as fast as its slowest link);</li>
 *   <li>ranks live on hosts of {@code ranksPerHost}; each host's clock is off by a known offset
 *       ({@link #hostOffsetNs}), and no trace has flagtrace's anchors: a merge must align them by the
 *       collectives' ends.</li>
 * </ul>
 *
 * <p>Run: {@code SyntheticJob DIR RANKS EVENTS_PER_RANK [STRAGGLER_RANK|-1] [SLOW_LINK 0|1]} writes
 * {@code DIR/rank-N.json}. Each rank is written in one pass with constant memory, ranks on all cores at once; the schedule of the
 * collectives (one end per step) is computed first.
 */
public final class SyntheticJob {
    /** Events one step writes per compute kernel: op, runtime call, kernel, flow start and end. */
    static final int EVENTS_PER_KERNEL = 5;
    /** The largest network jitter of a collective's end on one rank, ns. */
    public static final long JITTER_NS = 2_000;
    static final long BASE_TIME_NS = 1_700_000_000_000_000_000L;
    static final long OP_NS = 20_000, LAUNCH_NS = 5_000, LAUNCH_DELAY_NS = 3_000, GEMM_NS = 50_000, TRANSFER_NS = 120_000;
    static final long ELEMENTS = 4 << 20;
    static final String GEMM = "sm90_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas";
    static final String NCCL = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

    /** What to write. */
    public record Spec(int ranks, int steps, int kernels, int straggler, double stragglerFactor, double slowLinkFactor,
                       int ranksPerHost) {
        public Spec {
            if (ranks < 1 || steps < 1 || kernels < 1 || ranksPerHost < 1 || straggler >= ranks || stragglerFactor < 1 || slowLinkFactor < 1) {
                throw new IllegalArgumentException("a job needs ranks, steps, kernels and hosts ≥ 1, a straggler below ranks and factors ≥ 1");
            }
        }

        /** A job of about {@code eventsPerRank} events per rank, 8 compute kernels a step, 8 ranks a host. */
        public static Spec of(int ranks, long eventsPerRank, int straggler, boolean slowLink) {
            int kernels = 8;
            long perStep = (long) kernels * EVENTS_PER_KERNEL + 8; // + the collective's 5 and the sync's 3
            return new Spec(ranks, (int) Math.max(1, Math.min(Integer.MAX_VALUE, eventsPerRank / perStep)), kernels, straggler, 1.5,
                    slowLink ? 3.0 : 1.0, 8);
        }
    }

    private SyntheticJob() {
    }

    /** The clock offset of {@code rank}'s host from host 0's, ns: whole seconds and odd nanoseconds, known. */
    public static long hostOffsetNs(Spec spec, int rank) {
        int host = rank / spec.ranksPerHost();
        return host == 0 ? 0 : (host % 2 == 0 ? 1 : -1) * (host * 1_234_567_891L % 3_000_000_000L);
    }

    /** Network jitter of the collective of {@code step} on {@code rank}, ns in [0, JITTER_NS]. */
    static long jitterNs(int rank, int step) {
        long h = (rank * 0x9E3779B97F4A7C15L) ^ (step * 0xC2B2AE3D27D4EB4FL);
        h ^= h >>> 29;
        return Math.floorMod(h * 0xBF58476D1CE4E5B9L, JITTER_NS + 1);
    }

    static long gemmNs(Spec spec, int rank) {
        return rank == spec.straggler() ? Math.round(GEMM_NS * spec.stragglerFactor()) : GEMM_NS;
    }

    /** One rank's own timeline of a step, on the true clock: when its host starts the step and when its compute is done. */
    private static final class RankClock {
        long host;
        long computeFree;
    }

    /** When each step's collective becomes complete (the last rank's start plus the transfer), true clock, ns. */
    public static long[] collectiveStarts(Spec spec) {
        RankClock[] clocks = new RankClock[spec.ranks()];
        for (int r = 0; r < clocks.length; r++) {
            clocks[r] = new RankClock();
            clocks[r].host = 1_000_000;
        }
        long[] lastStart = new long[spec.steps()];
        long transfer = Math.round(TRANSFER_NS * spec.slowLinkFactor());
        for (int s = 0; s < spec.steps(); s++) {
            long last = 0;
            for (int r = 0; r < clocks.length; r++) {
                last = Math.max(last, arrive(spec, r, clocks[r]));
            }
            lastStart[s] = last;
            for (int r = 0; r < clocks.length; r++) {
                RankClock c = clocks[r];
                c.computeFree = last + transfer + jitterNs(r, s);
                c.host = Math.max(c.host, c.computeFree) + 2_000 + 5_000; // the synchronize returns, the next step starts
            }
        }
        return lastStart;
    }

    /** Runs one rank's host through a step's compute and collective launch; returns the collective kernel's start. */
    private static long arrive(Spec spec, int rank, RankClock c) {
        long host = c.host + 1_000;
        long gemm = gemmNs(spec, rank);
        for (int k = 0; k < spec.kernels(); k++) {
            long launchEnd = host + 2_000 + LAUNCH_NS;
            c.computeFree = Math.max(launchEnd + LAUNCH_DELAY_NS, c.computeFree) + gemm;
            host += OP_NS + 1_000;
        }
        long launchEnd = host + 2_000 + LAUNCH_NS;
        c.host = host + 15_000;
        return Math.max(launchEnd + LAUNCH_DELAY_NS, c.computeFree);
    }

    /** Writes {@code dir/rank-N.json} for every rank; returns the events written per rank (the same for all). */
    public static long write(Spec spec, Path dir) throws IOException {
        Files.createDirectories(dir);
        long[] lastStart = collectiveStarts(spec);
        JsonFactory json = new JsonFactory();
        // Ranks are independent once the collectives' schedule is known: written on every core at once.
        try {
            return IntStream.range(0, spec.ranks()).parallel().mapToLong(r -> writeRank(spec, r, lastStart, json, dir)).max().orElse(0);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    private static long writeRank(Spec spec, int rank, long[] lastStart, JsonFactory json, Path dir) {
        try (JsonGenerator g = json.createGenerator(Files.newOutputStream(dir.resolve("rank-" + rank + ".json")), JsonEncoding.UTF8)) {
            return writeRank(spec, rank, lastStart, g);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long writeRank(Spec spec, int rank, long[] lastStart, JsonGenerator g) throws IOException {
        long offset = hostOffsetNs(spec, rank);
        int pid = 10_000 + rank;
        int device = rank % spec.ranksPerHost();
        g.writeStartObject();
        g.writeNumberField("schemaVersion", 1);
        g.writeFieldName("deviceProperties");
        g.writeStartArray();
        g.writeStartObject();
        g.writeNumberField("id", device);
        g.writeStringField("name", "Synthetic H100");
        g.writeNumberField("totalGlobalMem", 85_000_000_000L);
        g.writeNumberField("computeMajor", 9);
        g.writeNumberField("computeMinor", 0);
        g.writeNumberField("numSms", 132);
        g.writeEndObject();
        g.writeEndArray();
        g.writeFieldName("distributedInfo");
        g.writeStartObject();
        g.writeStringField("backend", "nccl");
        g.writeNumberField("rank", rank);
        g.writeNumberField("world_size", spec.ranks());
        g.writeNumberField("pg_count", 1);
        g.writeEndObject();
        g.writeNumberField("baseTimeNanoseconds", BASE_TIME_NS);
        g.writeFieldName("traceEvents");
        g.writeStartArray();
        RankClock c = new RankClock();
        c.host = 1_000_000;
        long correlation = 1, external = 1, events = 0;
        long gemm = gemmNs(spec, rank);
        long transfer = Math.round(TRANSFER_NS * spec.slowLinkFactor());
        for (int s = 0; s < spec.steps(); s++) {
            long stepStart = c.host;
            long host = c.host + 1_000;
            for (int k = 0; k < spec.kernels(); k++) {
                long launch = host + 2_000;
                long start = Math.max(launch + LAUNCH_NS + LAUNCH_DELAY_NS, c.computeFree);
                c.computeFree = start + gemm;
                events += launchedWork(g, "cpu_op", "aten::mm", pid, host, OP_NS, launch, start, gemm, 7, device, GEMM,
                        correlation++, external++, offset, -1);
                host += OP_NS + 1_000;
            }
            long launch = host + 2_000;
            long start = Math.max(launch + LAUNCH_NS + LAUNCH_DELAY_NS, c.computeFree);
            long end = lastStart[s] + transfer + jitterNs(rank, s);
            c.computeFree = end;
            events += launchedWork(g, "cpu_op", "c10d::allreduce_", pid, host, 15_000, launch, start, end - start, 7, device, NCCL,
                    correlation++, external++, offset, spec.ranks());
            long syncStart = host + 15_000;
            long syncEnd = Math.max(syncStart, end) + 2_000;
            long sync = correlation++;
            complete(g, "cuda_runtime", "cudaStreamSynchronize", pid, pid, syncStart + offset, syncEnd - syncStart, a -> {
                a.writeNumberField("cbid", 131);
                a.writeNumberField("correlation", sync);
            });
            complete(g, "cuda_sync", "Stream Sync", device, 7, syncStart + 500 + offset, syncEnd - 1_000 - (syncStart + 500), a -> {
                a.writeStringField("cuda_sync_kind", "Stream Sync");
                a.writeNumberField("stream", 7);
                a.writeNumberField("correlation", sync);
                a.writeNumberField("device", device);
            });
            complete(g, "user_annotation", "ProfilerStep#" + s, pid, pid, stepStart + offset, syncEnd - stepStart, null);
            events += 3;
            c.host = syncEnd + 5_000;
        }
        g.writeEndArray();
        g.writeEndObject();
        return events;
    }

    /** An op, its launch call inside it, the device work it launched and the flow arrow: 5 events. */
    private static int launchedWork(JsonGenerator g, String cat, String op, int pid, long opStart, long opNs, long launch, long start,
                                    long dur, int stream, int device, String kernel, long correlation, long external, long offset,
                                    int groupSize) throws IOException {
        complete(g, cat, op, pid, pid, opStart + offset, opNs, a -> a.writeNumberField("External id", external));
        complete(g, "cuda_runtime", "cudaLaunchKernel", pid, pid, launch + offset, LAUNCH_NS, a -> {
            a.writeNumberField("External id", external);
            a.writeNumberField("cbid", 211);
            a.writeNumberField("correlation", correlation);
        });
        complete(g, "kernel", kernel, device, stream, start + offset, dur, a -> {
            a.writeNumberField("External id", external);
            a.writeNumberField("device", device);
            a.writeNumberField("stream", stream);
            a.writeNumberField("correlation", correlation);
            if (groupSize > 0) {
                a.writeStringField("Collective name", "allreduce");
                a.writeNumberField("In msg nelems", ELEMENTS);
                a.writeNumberField("Out msg nelems", ELEMENTS);
                a.writeNumberField("Group size", groupSize);
                a.writeStringField("dtype", "Float");
                a.writeStringField("Process Group Name", "0");
                a.writeStringField("Process Group Description", "default_pg");
            }
        });
        flow(g, "s", pid, pid, launch + offset, correlation);
        flow(g, "f", device, stream, start + offset, correlation);
        return 5;
    }

    /** What an event's args hold: its fields, written into the open args object. */
    private interface Args {
        void write(JsonGenerator g) throws IOException;
    }

    /** A complete event ("X"), its args written by {@code args} (null: no args). */
    private static void complete(JsonGenerator g, String cat, String name, int pid, int tid, long tsNs, long durNs, Args args)
            throws IOException {
        g.writeStartObject();
        g.writeStringField("ph", "X");
        g.writeStringField("cat", cat);
        g.writeStringField("name", name);
        g.writeNumberField("pid", pid);
        g.writeNumberField("tid", tid);
        g.writeFieldName("ts");
        g.writeNumber(micros(tsNs));
        g.writeFieldName("dur");
        g.writeNumber(micros(durNs));
        if (args != null) {
            g.writeFieldName("args");
            g.writeStartObject();
            args.write(g);
            g.writeEndObject();
        }
        g.writeEndObject();
    }

    private static void flow(JsonGenerator g, String ph, int pid, int tid, long tsNs, long id) throws IOException {
        g.writeStartObject();
        g.writeStringField("ph", ph);
        g.writeNumberField("id", id);
        g.writeNumberField("pid", pid);
        g.writeNumberField("tid", tid);
        g.writeFieldName("ts");
        g.writeNumber(micros(tsNs));
        g.writeStringField("cat", "ac2g");
        g.writeStringField("name", "ac2g");
        if (ph.equals("f")) {
            g.writeStringField("bp", "e");
        }
        g.writeEndObject();
    }

    /** ns as torch writes µs: an integer part and three decimals, exact. */
    static String micros(long ns) {
        long whole = Math.floorDiv(ns, 1_000);
        long frac = Math.floorMod(ns, 1_000);
        return whole + "." + (frac < 10 ? "00" : frac < 100 ? "0" : "") + frac;
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 3) {
            System.err.println("usage: SyntheticJob DIR RANKS EVENTS_PER_RANK [STRAGGLER_RANK|-1] [SLOW_LINK 0|1]");
            System.exit(2);
        }
        Spec spec = Spec.of(Integer.parseInt(args[1]), Long.parseLong(args[2]), args.length > 3 ? Integer.parseInt(args[3]) : -1,
                args.length > 4 && args[4].equals("1"));
        long t0 = System.nanoTime();
        long events = write(spec, Path.of(args[0]));
        System.out.printf("wrote %d ranks x %d events (%d steps of %d kernels, straggler %d, slow link x%.1f) in %.1f s%n", spec.ranks(),
                events, spec.steps(), spec.kernels(), spec.straggler(), spec.slowLinkFactor(), (System.nanoTime() - t0) / 1e9);
    }
}
