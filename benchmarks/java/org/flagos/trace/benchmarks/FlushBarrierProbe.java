package org.flagos.trace.benchmarks;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.nio.file.Files;
import java.nio.file.Path;
import org.bytedeco.cuda.global.cudart;
import org.flagos.trace.model.DeviceTracer;
import org.flagos.trace.session.OpScope;
import org.flagos.trace.session.Profiler;
import org.flagos.trace.session.ProfilerSession;
import org.flagos.trace.session.SessionOptions;
import org.flagos.trace.stages.CaptureAccounting;

/**
 * Live, NVIDIA only: a program that alternates launch bursts with CPU-only phases under an armed
 * CUPTI session, as a training loop alternates steps with data loading. Each round: 2,000
 * {@code launch} ops of one 4-byte {@code cudaMemsetAsync} each, then {@code cpuOps} CPU-only ops (a
 * {@code load} around a {@code decode}) in ten slices with a 100 ms pause after each. Prints one
 * JSON line per session: what the session's flush barriers settled, the most ops held, records that
 * came after their op settled (CUPTI's default flush withholding a binding would show there), and
 * whether the launch ops' device time is every memset's (the trace's {@code gpu_memset} durations).
 * Run once with the default and once with {@code -Dflagtrace.settleBarrierMs=0} to compare.
 *
 * <p>{@code java ... FlushBarrierProbe [rounds=4] [cpuOps=200000] [sessions=2] [dir]}
 */
public final class FlushBarrierProbe {
    private static final int LAUNCHES = 2_000;

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        int cpuOps = args.length > 1 ? Integer.parseInt(args[1]) : 200_000;
        int sessions = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        Path dir = args.length > 3 ? Path.of(args[3]) : Files.createTempDirectory("flagtrace-barrier-");
        DeviceTracer tracer = Profiler.init();
        if (!tracer.available()) {
            throw new IllegalStateException("tracer unavailable: " + tracer.unavailableReason());
        }
        CudaMemsetLoop loop = CudaMemsetLoop.open(0);
        for (int s = 0; s < sessions; s++) {
            Path trace = dir.resolve("barrier-" + s + ".json");
            ProfilerSession session = Profiler.start(SessionOptions.to(trace));
            long began = System.nanoTime();
            for (int r = 0; r < rounds; r++) {
                for (int i = 0; i < LAUNCHES; i++) {
                    try (OpScope op = session.op("launch")) {
                        loop.launchOne(i & 0xff);
                    }
                }
                for (int slice = 0; slice < 10; slice++) {
                    for (int i = 0; i < cpuOps / 20; i++) {
                        try (OpScope load = session.op("load")) {
                            session.op("decode").close();
                        }
                    }
                    Thread.sleep(100);
                }
            }
            cudart.cudaDeviceSynchronize();
            long ran = System.nanoTime();
            session.close();
            long closed = System.nanoTime();
            double[] memsets = memsets(trace);
            CaptureAccounting a = session.accounting();
            System.out.printf("{\"session\":%d,\"host_ops\":%d,\"memsets\":%d,\"run_s\":%.3f,\"stop_to_trace_s\":%.6f,"
                    + "\"flush_barriers\":%d,\"ops_settled_at_barrier\":%d,\"ops_held_max\":%d,\"ops_settled_at_capacity\":%d,"
                    + "\"records_after_op_settled\":%d,\"device_records_without_op\":%d,\"launch_device_us\":%.3f,\"memset_us\":%.3f,"
                    + "\"cupti_dropped\":%d}%n",
                    s, a.hostOps(), (long) memsets[0], (ran - began) / 1e9, (closed - ran) / 1e9, a.flushBarriers(), a.opsSettledAtBarrier(),
                    a.opsHeldMax(), a.opsSettledAtCapacity(), a.recordsAfterOpSettled(), a.deviceRecordsWithoutOp(),
                    session.summary().row("launch").deviceTimeTotalUs(), memsets[1], tracer.droppedByVendor());
            Files.delete(trace);
        }
        loop.close();
    }

    /** The trace's {@code gpu_memset} events: how many, and their durations' sum in µs; read token by token (jackson-core only). */
    private static double[] memsets(Path trace) throws java.io.IOException {
        double count = 0;
        double us = 0;
        try (JsonParser p = new JsonFactory().createParser(trace.toFile())) {
            while (p.nextToken() != null && !(p.currentToken() == JsonToken.FIELD_NAME && "traceEvents".equals(p.currentName()))) {
                // to the events
            }
            p.nextToken();
            while (p.nextToken() == JsonToken.START_OBJECT) {
                String cat = null;
                double dur = 0;
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String field = p.currentName();
                    JsonToken value = p.nextToken();
                    if ("cat".equals(field)) {
                        cat = p.getText();
                    } else if ("dur".equals(field) && value.isNumeric()) {
                        dur = p.getDoubleValue();
                    } else {
                        p.skipChildren();
                    }
                }
                if ("gpu_memset".equals(cat)) {
                    count++;
                    us += dur;
                }
            }
        }
        return new double[] {count, us};
    }

    private FlushBarrierProbe() {
    }
}
