package org.flagos.trace.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import org.bytedeco.cuda.global.cudart;
import org.flagos.trace.model.DeviceTracer;
import org.flagos.trace.session.OpScope;
import org.flagos.trace.session.Profiler;
import org.flagos.trace.session.ProfilerSession;
import org.flagos.trace.session.SessionOptions;

/**
 * Live, NVIDIA only: the time from closing a session to its complete trace on disk, for the count
 * torch's overhead script measures ({@code ../shared/reference/torch-cuda-h200/torch_overhead.json},
 * n100000: 100,000 ops, 500,084 events; stop 1.58-1.70 s, export 1.00-1.05 s). Each op here is one
 * host op around one 4-byte {@code cudaMemsetAsync}: cpu_op, runtime, memset and the two flow halves,
 * five events, the same shape as torch's {@code x.add_} loop. Prints one JSON line per session.
 *
 * <p>{@code java ... StopToTraceProbe [ops=100000] [sessions=3] [dir]}
 */
public final class StopToTraceProbe {
    public static void main(String[] args) throws Exception {
        int ops = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int sessions = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        Path dir = args.length > 2 ? Path.of(args[2]) : Files.createTempDirectory("flagtrace-stop-");
        DeviceTracer tracer = Profiler.init();
        if (!tracer.available()) {
            throw new IllegalStateException("tracer unavailable: " + tracer.unavailableReason());
        }
        CudaMemsetLoop loop = CudaMemsetLoop.open(0);
        for (int s = 0; s < sessions; s++) {
            Path trace = dir.resolve("stop-" + s + ".json");
            long t0 = System.nanoTime();
            ProfilerSession session = Profiler.start(SessionOptions.to(trace));
            long started = System.nanoTime();
            for (int i = 0; i < ops; i++) {
                try (OpScope op = session.op("aten::add_")) {
                    loop.launchOne(i & 0xff);
                }
            }
            cudart.cudaDeviceSynchronize();
            long ran = System.nanoTime();
            session.close();
            long closed = System.nanoTime();
            System.out.printf("{\"ops\":%d,\"events\":%d,\"bytes\":%d,\"start_s\":%.6f,\"run_s\":%.6f,\"stop_to_trace_s\":%.6f,"
                    + "\"ring_full_waits\":%d,\"ops_kept_aside\":%d,\"cupti_dropped\":%d,\"host_clock_bound_ns\":%d,\"host_clock_drift_ns\":%d,"
                    + "\"ops_held_max\":%d,\"op_settle_records\":%d,\"records_after_op_settled\":%d,\"device_records_without_op\":%d,"
                    + "\"gpu_annotations_not_nested\":%d}%n",
                    ops, session.events(), Files.size(trace), (started - t0) / 1e9, (ran - started) / 1e9, (closed - ran) / 1e9,
                    session.accounting().ringFullWaits(), session.accounting().opsSpilled(), tracer.droppedByVendor(),
                    session.accounting().hostClock().errorBoundNs(), session.accounting().hostClock().driftNs(),
                    session.accounting().opsHeldMax(), session.accounting().opSettleRecords(),
                    session.accounting().recordsAfterOpSettled(), session.accounting().deviceRecordsWithoutOp(),
                    session.accounting().gpuAnnotationsNotNested());
            Files.delete(trace);
        }
        loop.close();
    }

    private StopToTraceProbe() {
    }
}
