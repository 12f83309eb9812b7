package org.flagos.trace.testing;

import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Path;
import java.util.Map;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.cli.TestDevices;
import org.flagos.trace.pipeline.EventKind;
import org.flagos.trace.stages.CaptureAccounting;

/**
 * Replays a capture file (streamed) into a byte counter and prints one line of figures: what the
 * bounded-memory test runs in a child JVM with a small heap. {@code BoundedReplayMain CAPTURE}.
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
        long t0 = System.nanoTime();
        Counter out = new Counter();
        CaptureReplay.Result result = CaptureReplay.run(
                CaptureReplay.request(Path.of(args[0]), null, null, TestDevices.h200(), Map.of()), out);
        double seconds = (System.nanoTime() - t0) / 1e9;
        CaptureAccounting a = result.accounting();
        StringBuilder line = new StringBuilder();
        line.append("events=").append(result.events())
                .append(" trace_bytes=").append(out.bytes)
                .append(" seconds=").append(String.format("%.2f", seconds))
                .append(" peak_heap_mib=").append(peakHeapBytes() >> 20)
                .append(" max_heap_mib=").append(Runtime.getRuntime().maxMemory() >> 20)
                .append(" bindings=").append(a.decode().bindings())
                .append(" joined_after_arrival=").append(a.join().lateJoined())
                .append(" longest_wait=").append(a.join().longestWait())
                .append(" released_without_binding=").append(a.join().releasedAtHorizon())
                .append(" flow_ends_given_up=").append(a.flowEndsGivenUp())
                .append(" truncated=").append(result.truncated());
        for (EventKind kind : EventKind.values()) {
            line.append(" decoded_").append(kind.category()).append('=').append(a.decode().published(kind));
            line.append(" unjoined_").append(kind.category()).append('=').append(a.join().unjoined(kind));
        }
        System.out.println(line);
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
