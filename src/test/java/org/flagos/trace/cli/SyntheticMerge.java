package org.flagos.trace.cli;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * A merged trace written by hand, shaped as {@code flagtrace merge} writes one (pids
 * {@code (slot + 1) * 1000 + n}, a {@code flagtrace_merge} block after the events), for ranks and
 * steps beyond what the bundled captures hold. Each step of each rank: a {@code ProfilerStep#k}
 * op of 10 ms (plus 1 us a rank, plus up to 0.88 ms of jitter by rank and step, plus 5 ms on the
 * step's straggler, {@link #straggler}, so each step has one slowest rank),
 * a GEMM of 3 ms (5 ms on rank 40), an NCCL all-reduce of 2 ms on another stream whose first 1 ms
 * overlaps the GEMM (all of it on rank 40), then a hostile-named kernel of 0.1 ms and a 0.3 ms copy, each
 * launched by an op.
 */
final class SyntheticMerge {
    /** A kernel name that would break a page that did not escape it. */
    static final String HOSTILE = "k<T>&\"'</td><script>x()</script>";

    private SyntheticMerge() {
    }

    /** The rank that is slowest in step {@code k}. */
    static int straggler(int k, int ranks) {
        return (k * 7 + 3) % ranks;
    }

    static Path write(Path path, int ranks, int steps) throws IOException {
        try (Writer w = Files.newBufferedWriter(path, StandardCharsets.UTF_8)) {
            w.write("{\"traceEvents\":[\n");
            boolean first = true;
            for (int r = 0; r < ranks; r++) {
                long host = (r + 1) * 1000L + 1;
                long device = (r + 1) * 1000L + 2;
                for (int k = 0; k < steps; k++) {
                    double base = k * 20_000.0;
                    long id = (long) r * 1_000_000 + k * 10L;
                    double step = 10_000 + r + (r * 37 + k * 11) % 23 * 40 + (r == straggler(k, ranks) ? 5_000 : 0);
                    double gemm = r == 40 ? 5_000 : 3_000;
                    StringBuilder b = new StringBuilder();
                    event(b, "cpu_op", "ProfilerStep#" + k, host, 1, base, step, id);
                    event(b, "cpu_op", "aten::mm", host, 1, base + 100, 200, id + 1);
                    event(b, "kernel", "gemm_kernel", device, 7, base + 500, gemm, id + 1);
                    event(b, "kernel", HOSTILE, device, 7, base + 6_000, 100, id + 1);
                    event(b, "cpu_op", "c10d::allreduce_", host, 1, base + 400, 100, id + 2);
                    event(b, "kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", device, 13, base + 2_500, 2_000, id + 2);
                    event(b, "cpu_op", "aten::copy_", host, 1, base + 600, 50, id + 3);
                    event(b, "gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", device, 7, base + 8_000, 300, id + 3);
                    w.write((first ? "" : ",\n") + b.substring(2));
                    first = false;
                }
            }
            w.write("\n],\n\"flagtrace_merge\":{\"pid_stride\":1000,\"inputs\":[");
            for (int r = 0; r < ranks; r++) {
                w.write((r == 0 ? "" : ",") + "{\"slot\":" + r + ",\"rank\":" + r + ",\"host\":\"node<" + r / 8 + ">\"}");
            }
            w.write("]}}\n");
        }
        return path;
    }

    private static void event(StringBuilder b, String cat, String name, long pid, int tid, double ts, double dur, long external) {
        b.append(",\n{\"ph\":\"X\",\"cat\":\"").append(cat).append("\",\"name\":\"").append(name.replace("\"", "\\\""))
                .append("\",\"pid\":").append(pid).append(",\"tid\":").append(tid)
                .append(String.format(Locale.ROOT, ",\"ts\":%.3f,\"dur\":%.3f", ts, dur))
                .append(",\"args\":{\"External id\":").append(external).append("}}");
    }
}
