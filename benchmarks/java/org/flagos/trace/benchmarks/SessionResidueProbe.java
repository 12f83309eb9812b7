package org.flagos.trace.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import org.flagos.trace.model.DeviceTracer;
import org.flagos.trace.session.OpScope;
import org.flagos.trace.session.Profiler;
import org.flagos.trace.session.ProfilerSession;
import org.flagos.trace.session.SessionOptions;

/**
 * Does a closed session leave launch overhead behind, and does a second session after it still
 * capture? One JVM: µs per 4-byte cudaMemsetAsync before any session, during three sessions in a
 * row and after each; the memset records each session decoded. Run with and without
 * {@code -Dflagtrace.cupti.finalizeAtStop=true}. A probe, not a JMH benchmark: medians of 7 rounds
 * of 100,000 launches, printed as one line each.
 */
public final class SessionResidueProbe {
    private static final int LAUNCHES = 100_000;

    public static void main(String[] args) throws Exception {
        DeviceTracer tracer = Profiler.init();
        if (!tracer.available()) {
            throw new IllegalStateException("tracer unavailable: " + tracer.unavailableReason());
        }
        Path dir = Files.createTempDirectory("flagtrace-residue");
        try (CudaMemsetLoop loop = CudaMemsetLoop.open(0)) {
            report("before any session", loop);
            for (int s = 1; s <= 3; s++) {
                ProfilerSession session = Profiler.start(SessionOptions.to(dir.resolve("s" + s + ".json")));
                double during = 0;
                if (s != 1 || !Boolean.getBoolean("probe.emptyFirstSession")) {
                    try (OpScope op = session.op("launches")) {
                        during = median(loop);
                    }
                }
                session.close();
                System.out.printf("session %d: %.3f us/launch during; decoded %s%n", s, during,
                        session.accounting().lines().get(0));
                report("after session " + s, loop);
            }
        }
    }

    /** The median, then the same loop over the next seconds in slices: does any residue decay? */
    private static void report(String phase, CudaMemsetLoop loop) {
        StringBuilder slices = new StringBuilder();
        long start = System.nanoTime();
        for (int i = 0; i < 6; i++) {
            long t0 = System.nanoTime();
            loop.launch(LAUNCHES * 3);
            slices.append(String.format(" %.3f@%.1fs", (System.nanoTime() - t0) / 1e3 / (LAUNCHES * 3),
                    (System.nanoTime() - start) / 1e9));
        }
        System.out.printf("%s: %.3f us/launch; then%s%n", phase, median(loop), slices);
    }

    private static double median(CudaMemsetLoop loop) {
        double[] rounds = new double[7];
        loop.launch(10_000);
        for (int r = 0; r < rounds.length; r++) {
            long t0 = System.nanoTime();
            loop.launch(LAUNCHES);
            rounds[r] = (System.nanoTime() - t0) / 1e3 / LAUNCHES;
        }
        java.util.Arrays.sort(rounds);
        return rounds[rounds.length / 2];
    }

    private SessionResidueProbe() {
    }
}
