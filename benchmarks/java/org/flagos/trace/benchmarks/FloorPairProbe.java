package org.flagos.trace.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import org.flagos.trace.model.DeviceTracer;
import org.flagos.trace.session.OpScope;
import org.flagos.trace.session.Profiler;
import org.flagos.trace.session.ProfilerSession;
import org.flagos.trace.session.SessionOptions;

/**
 * Live, NVIDIA only: flagtrace's half of a pair with the C floor ({@code benchmarks/device/floor/launch_floor.cpp},
 * run by {@code benchmarks/run-device-floor.sh}). One JVM runs the floor's sequence: {@code Profiler.init()}
 * before the first CUDA call, then µs per 4-byte {@code cudaMemsetAsync} (batches of launches, each
 * synchronized) plain, inside a session (one host op around each batch, as the floor pushes one
 * external id), and after the session is closed; then {@code cycles} times a fresh session and after it
 * again, {@code cycleBatches} timed batches each, as the floor's cycles arm and disarm its kinds (each
 * cycle's increment is measured back to back, so what moves a whole process cancels out of it). A probe
 * rather than JMH forks, so that ten and more pairs fit one device command. Prints one JSON line: the
 * median of the timed batches per phase, with min and max, each cycle's two medians, and what the
 * first session recorded.
 *
 * <p>{@code java ... FloorPairProbe [batches=40] [launches=10000] [warmup=5] [pair=0] [jitWarmup=20] [cycles=0]
 * [cycleBatches=10]}
 */
public final class FloorPairProbe {
    public static void main(String[] args) throws Exception {
        int batches = arg(args, 0, 40);
        int launches = arg(args, 1, 10_000);
        int warmup = arg(args, 2, 5);
        int pair = arg(args, 3, 0);
        int jitWarmup = arg(args, 4, 20);
        int cycles = arg(args, 5, 0);
        int cycleBatches = arg(args, 6, 10);
        if (batches < 1 || launches < 1 || warmup < 0 || jitWarmup < 0 || cycles < 0 || cycleBatches < 1) {
            throw new IllegalArgumentException("usage: FloorPairProbe [batches>=1] [launches>=1] [warmup>=0] [pair] [jitWarmup>=0]"
                    + " [cycles>=0] [cycleBatches>=1]");
        }
        DeviceTracer tracer = Profiler.init();
        if (!tracer.available()) {
            throw new IllegalStateException("tracer unavailable: " + tracer.unavailableReason());
        }
        Path dir = Files.createTempDirectory("flagtrace-floor-");
        Path trace = dir.resolve("floor.json");
        StringBuilder json = new StringBuilder();
        try (CudaMemsetLoop loop = CudaMemsetLoop.open(0)) {
            // The floor is compiled ahead of time; the JVM's loop gets its compiled code here, untimed.
            for (int i = 0; i < jitWarmup; i++) {
                loop.launch(launches);
            }
            phase(json, "plain", null, loop, launches, warmup, batches);

            ProfilerSession session = Profiler.start(SessionOptions.to(trace));
            phase(json, "session", session, loop, launches, warmup, batches);
            long t0 = System.nanoTime();
            session.close();
            double closeS = (System.nanoTime() - t0) / 1e9;
            long bytes = Files.size(trace);
            Files.delete(trace);

            phase(json, "after", null, loop, launches, warmup, batches);
            StringBuilder on = new StringBuilder("\"cycle_on\":[");
            StringBuilder off = new StringBuilder("\"cycle_off\":[");
            for (int c = 0; c < cycles; c++) {
                try (ProfilerSession cycle = Profiler.start(SessionOptions.to(trace))) {
                    on.append(c == 0 ? "" : ",").append(format(median(timed(cycle, loop, launches, 1, cycleBatches))));
                }
                Files.delete(trace);
                off.append(c == 0 ? "" : ",").append(format(median(timed(null, loop, launches, 1, cycleBatches))));
            }
            json.append(on).append("],").append(off).append("],");
            json.append(String.format(Locale.ROOT, "\"close_s\":%.6f,\"events\":%d,\"trace_bytes\":%d,\"ring_full_waits\":%d,"
                    + "\"ops_kept_aside\":%d,\"dropped_by_vendor\":%d", closeS, session.events(), bytes,
                    session.accounting().ringFullWaits(), session.accounting().opsSpilled(), tracer.droppedByVendor()));
        } finally {
            Files.deleteIfExists(trace);
            Files.deleteIfExists(dir);
        }
        System.out.printf(Locale.ROOT, "{\"side\":\"java\",\"pair\":%d,\"batches\":%d,\"launches\":%d,%s}%n",
                pair, batches, launches, json);
    }

    /** {@code warmup} untimed batches, then the median, min and max of {@code batches} timed ones. */
    private static void phase(StringBuilder json, String name, ProfilerSession session, CudaMemsetLoop loop,
            int launches, int warmup, int batches) {
        double[] t = timed(session, loop, launches, warmup, batches);
        json.append(String.format(Locale.ROOT, "\"%s\":%.4f,\"%s_min\":%.4f,\"%s_max\":%.4f,", name, median(t), name, t[0],
                name, t[t.length - 1]));
    }

    /** {@code warmup} untimed batches, then {@code batches} timed ones, sorted. */
    private static double[] timed(ProfilerSession session, CudaMemsetLoop loop, int launches, int warmup, int batches) {
        for (int i = 0; i < warmup; i++) {
            batch(session, loop, launches);
        }
        double[] t = new double[batches];
        for (int i = 0; i < batches; i++) {
            t[i] = batch(session, loop, launches);
        }
        Arrays.sort(t);
        return t;
    }

    private static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static String format(double v) {
        return String.format(Locale.ROOT, "%.4f", v);
    }

    /** One batch in µs per launch: inside one op when a session runs, as a profiled program's work would be. */
    private static double batch(ProfilerSession session, CudaMemsetLoop loop, int launches) {
        long t0 = System.nanoTime();
        if (session == null) {
            loop.launch(launches);
        } else {
            try (OpScope op = session.op("memsets")) {
                loop.launch(launches);
            }
        }
        return (System.nanoTime() - t0) / 1e3 / launches;
    }

    private static int arg(String[] args, int i, int fallback) {
        return args.length > i ? Integer.parseInt(args[i]) : fallback;
    }

    private FloorPairProbe() {
    }
}
