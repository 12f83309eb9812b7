package org.flagos.trace.benchmarks;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.flagos.trace.session.OpScope;
import org.flagos.trace.session.Profiler;
import org.flagos.trace.session.ProfilerSession;
import org.flagos.trace.session.SessionOptions;

/**
 * {@link StopToTraceProbe}'s sessions on a machine without a GPU: the same ops, each around one
 * launch whose records ({@link SyntheticMemsetTracer}: binding, runtime call, memset) are CUPTI
 * 13.0's, decoded by the CUPTI decoder, so the close has the same records to finish. Prints one JSON
 * line per session, with the process's CPU seconds during the close beside its wall time.
 *
 * <p>A machine without a GPU runs the op loop faster than a launch allows and its stages may lag
 * behind; {@code settleMs} waits that long between the loop and the close (the last partial buffer
 * and any ops kept aside still wait for the close, as after a device synchronize), so that the close
 * times what is left at the close, not a backlog. {@code paceNs} spins that long per op (a launch's
 * cost: 4.5-6 us per op on the H200, run_s of StopToTraceProbe).
 *
 * <p>{@code java ... CpuStopToTraceProbe [ops=100000] [sessions=3] [dir] [settleMs=0] [paceNs=0] [initPauseMs=0]}
 * ({@code initPauseMs}: a pause between {@code Profiler.init()} and the first session, so that what
 * init starts in the background has ended: on 2 busy cores it would otherwise compete with the
 * first session, which it does not on the GPU machine's idle ones)
 */
public final class CpuStopToTraceProbe {
    public static void main(String[] args) throws Exception {
        int ops = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int sessions = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        Path dir = args.length > 2 ? Path.of(args[2]) : Files.createTempDirectory("flagtrace-stop-");
        long settleMs = args.length > 3 ? Long.parseLong(args[3]) : 0;
        long paceNs = args.length > 4 ? Long.parseLong(args[4]) : 0;
        long initPauseMs = args.length > 5 ? Long.parseLong(args[5]) : 0;
        Profiler.init(); // as the GPU probe does: whatever init starts, it starts here too
        Thread.sleep(initPauseMs);
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        SyntheticMemsetTracer tracer = new SyntheticMemsetTracer();
        for (int s = 0; s < sessions; s++) {
            Path trace = dir.resolve("stop-" + s + ".json");
            long t0 = System.nanoTime();
            ProfilerSession session = Profiler.start(tracer, SessionOptions.to(trace));
            long started = System.nanoTime();
            for (int i = 0; i < ops; i++) {
                try (OpScope op = session.op("aten::add_")) {
                    tracer.launchOne(i & 0xff);
                    spin(paceNs);
                }
            }
            tracer.synchronize(); // the GPU probe's cudaDeviceSynchronize(): a runtime call and a context sync record
            long ran = System.nanoTime();
            Thread.sleep(settleMs);
            long stopping = System.nanoTime();
            long cpu0 = os.getProcessCpuTime();
            session.close();
            long closed = System.nanoTime();
            long cpu1 = os.getProcessCpuTime();
            System.out.printf("{\"ops\":%d,\"events\":%d,\"bytes\":%d,\"start_s\":%.6f,\"run_s\":%.6f,\"stop_to_trace_s\":%.6f,"
                    + "\"settle_ms\":%d,\"close_cpu_s\":%.6f,\"ring_full_waits\":%d,\"ops_kept_aside\":%d,\"load1\":%.2f,"
                    + "\"close_from_ns\":%d,\"close_to_ns\":%d}%n",
                    ops, session.events(), Files.size(trace), (started - t0) / 1e9, (ran - started) / 1e9, (closed - stopping) / 1e9, settleMs,
                    (cpu1 - cpu0) / 1e9, session.accounting().ringFullWaits(), session.accounting().opsSpilled(),
                    os.getSystemLoadAverage(), stopping, closed);
            var counts = session.accounting();
            System.out.printf("{\"counts\":{\"ops_held_max\":%d,\"op_settle_records\":%d,\"records_after_op_settled\":%d,"
                    + "\"device_records_without_op\":%d,\"ops_settled_at_capacity\":%d,\"ops_nested_approximately\":%d,"
                    + "\"gpu_annotations\":%d,\"gpu_annotations_not_nested\":%d}}%n",
                    counts.opsHeldMax(), counts.opSettleRecords(), counts.recordsAfterOpSettled(), counts.deviceRecordsWithoutOp(),
                    counts.opsSettledAtCapacity(), counts.opsNestedApproximately(), counts.gpuAnnotations(),
                    counts.gpuAnnotationsNotNested());
            Files.delete(trace);
        }
    }

    private static void spin(long nanos) {
        if (nanos > 0) {
            for (long end = System.nanoTime() + nanos; System.nanoTime() < end; ) {
                Thread.onSpinWait();
            }
        }
    }

    private CpuStopToTraceProbe() {
    }
}
