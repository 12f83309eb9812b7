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
 * external id), and after the session is closed. A probe rather than JMH forks, so that ten and more
 * pairs fit one device command. Prints one JSON line: the median of the timed batches per phase, with
 * min and max, and what the session recorded.
 *
 * <p>{@code java ... FloorPairProbe [batches=40] [launches=10000] [warmup=5] [pair=0] [jitWarmup=20]}
 */
public final class FloorPairProbe {
    public static void main(String[] args) throws Exception {
        int batches = arg(args, 0, 40);
        int launches = arg(args, 1, 10_000);
        int warmup = arg(args, 2, 5);
        int pair = arg(args, 3, 0);
        int jitWarmup = arg(args, 4, 20);
        if (batches < 1 || launches < 1 || warmup < 0 || jitWarmup < 0) {
            throw new IllegalArgumentException("usage: FloorPairProbe [batches>=1] [launches>=1] [warmup>=0] [pair] [jitWarmup>=0]");
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
        for (int i = 0; i < warmup; i++) {
            batch(session, loop, launches);
        }
        double[] t = new double[batches];
        for (int i = 0; i < batches; i++) {
            t[i] = batch(session, loop, launches);
        }
        Arrays.sort(t);
        int n = t.length;
        double median = n % 2 == 1 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
        json.append(String.format(Locale.ROOT, "\"%s\":%.4f,\"%s_min\":%.4f,\"%s_max\":%.4f,", name, median, name, t[0],
                name, t[n - 1]));
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
