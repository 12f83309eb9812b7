package org.flagos.trace.testing;

import java.io.OutputStream;
import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.GcInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Path;
import java.util.Map;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.capture.TraceFormat;
import org.flagos.trace.cli.TestDevices;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.stages.CaptureAccounting;
import org.flagos.trace.stages.OpSummaryRow;

/**
 * Replays a capture file (streamed), with its ops file when given, into a byte counter and prints
 * one line of figures, the op summary's rows in integer nanoseconds among them: what the
 * bounded-memory test runs in a child JVM with a small heap. {@code BoundedReplayMain CAPTURE [OPS]}
 * ({@code -Dflagtrace.test.format=pftrace}: the trace as Perfetto's protobuf).
 */
public final class BoundedReplayMain {
    /** Counts trace bytes and drops them. */
    static final class Counter extends OutputStream {
        long bytes;

        @Override
        public void write(int b) {
            bytes++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            bytes += len;
        }
    }

    public static void main(String[] args) throws Exception {
        watchCollections();
        long t0 = System.nanoTime();
        Counter out = new Counter();
        CaptureReplay.Result result = CaptureReplay.run(
                CaptureReplay.request(Path.of(args[0]), args.length > 1 ? Path.of(args[1]) : null, null, TestDevices.h200(),
                        Map.of())
                        // -Dflagtrace.test.format=pftrace: Perfetto's protobuf trace instead of JSON
                        .withFormat("pftrace".equals(System.getProperty("flagtrace.test.format")) ? TraceFormat.PERFETTO : TraceFormat.JSON),
                out);
        double seconds = (System.nanoTime() - t0) / 1e9;
        CaptureAccounting a = result.accounting();
        StringBuilder line = new StringBuilder();
        line.append("events=").append(result.events())
                .append(" trace_bytes=").append(out.bytes)
                .append(" seconds=").append(String.format("%.2f", seconds))
                .append(" peak_heap_mib=").append(peakHeapBytes() >> 20)
                .append(" live_after_gc_mib=").append(LIVE_AFTER_GC.get() >> 20)
                .append(" collections=").append(COLLECTIONS.get())
                .append(" max_heap_mib=").append(Runtime.getRuntime().maxMemory() >> 20)
                .append(" bindings=").append(a.decode().bindings())
                .append(" joined_after_arrival=").append(a.lateJoined())
                .append(" longest_wait=").append(a.longestWait())
                .append(" released_without_binding=").append(a.releasedAtHorizon())
                .append(" flow_ends_given_up=").append(a.flowEndsGivenUp())
                .append(" truncated=").append(result.truncated())
                .append(" host_ops=").append(a.hostOps())
                .append(" ops_held_max=").append(a.opsHeldMax())
                .append(" device_records_without_op=").append(a.deviceRecordsWithoutOp())
                .append(" gpu_annotations=").append(a.gpuAnnotations())
                .append(" gpu_annotations_not_nested=").append(a.gpuAnnotationsNotNested())
                .append(" gpu_annotations_streams_past_limit=").append(a.gpuAnnotationStreamsPastLimit())
                .append(" ops_settled_at_capacity=").append(a.opsSettledAtCapacity())
                .append(" ops_nested_approximately=").append(a.opsNestedApproximately())
                .append(" ops_drawn_before_row_known=").append(a.opsDrawnBeforeRowKnown());
        if (result.summary() != null) {
            for (OpSummaryRow row : result.summary().rows()) {
                String op = " op." + row.name() + ".";
                line.append(op).append("count=").append(row.count())
                        .append(op).append("cpu_ns=").append(Math.round(row.cpuTimeTotalUs() * 1000))
                        .append(op).append("self_cpu_ns=").append(Math.round(row.selfCpuTimeTotalUs() * 1000))
                        .append(op).append("device_ns=").append(Math.round(row.deviceTimeTotalUs() * 1000))
                        .append(op).append("self_device_ns=").append(Math.round(row.selfDeviceTimeTotalUs() * 1000));
            }
        }
        for (EventKind kind : EventKind.values()) {
            line.append(" decoded_").append(kind.category()).append('=').append(a.decode().published(kind));
            line.append(" unjoined_").append(kind.category()).append('=').append(a.unjoined(kind));
        }
        System.out.println(line);
    }

    /** The most heap in use just after a collection: what was still held, garbage left out. */
    private static final AtomicLong LIVE_AFTER_GC = new AtomicLong();
    private static final AtomicLong COLLECTIONS = new AtomicLong();

    private static boolean watching;

    /** Starts noting the heap left after each collection (once per JVM). */
    public static synchronized void watchCollections() {
        if (watching) {
            return;
        }
        watching = true;
        for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
            ((NotificationEmitter) collector).addNotificationListener((notification, handback) -> {
                if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
                    GcInfo info = GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData()).getGcInfo();
                    long used = 0;
                    for (MemoryUsage usage : info.getMemoryUsageAfterGc().values()) {
                        used += usage.getUsed();
                    }
                    LIVE_AFTER_GC.accumulateAndGet(used, Math::max);
                    COLLECTIONS.incrementAndGet();
                }
            }, null, null);
        }
    }

    /** The most heap in use just after a collection since the last reset (or the start). */
    public static long liveAfterGcBytes() {
        return LIVE_AFTER_GC.get();
    }

    public static void resetLiveAfterGc() {
        LIVE_AFTER_GC.set(0);
    }

    /** The sum of every heap pool's peak: an upper bound of the heap in use at any one time. */
    public static long peakHeapBytes() {
        long sum = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                sum += pool.getPeakUsage().getUsed();
            }
        }
        return sum;
    }

    private BoundedReplayMain() {
    }
}
