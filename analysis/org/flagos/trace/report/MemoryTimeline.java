package org.flagos.trace.report;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * Device memory over time, from a trace's {@code [memory]} instants (torch's, and flagtrace's from
 * CUPTI's MEMORY2 records): per device, the {@code Total Allocated} each event left, as points in
 * time. Bounded: a device keeps at most {@link #MAX_POINTS} points; when full, neighbouring pairs are
 * merged into the later time and the larger total, so peaks survive and memory stays fixed however
 * long the trace.
 */
final class MemoryTimeline {
    /** Points kept per device at most (16 B each). */
    static final int MAX_POINTS = 1 << 14;
    /** Devices kept at most: a trace naming more is summarised on its first ones. */
    static final int MAX_DEVICES = 64;

    /** One device's series, times in ns on the trace's clock. */
    static final class Series {
        long[] ts = new long[64];
        long[] total = new long[64];
        int size;
        long peak;

        void add(long t, long bytes) {
            if (size == ts.length) {
                if (size == MAX_POINTS) {
                    halve();
                } else {
                    ts = Arrays.copyOf(ts, size * 2);
                    total = Arrays.copyOf(total, size * 2);
                }
            }
            ts[size] = t;
            total[size] = bytes;
            size++;
            peak = Math.max(peak, bytes);
        }

        private void halve() {
            int n = 0;
            for (int i = 0; i + 1 < size; i += 2) {
                ts[n] = ts[i + 1];
                total[n] = Math.max(total[i], total[i + 1]);
                n++;
            }
            if ((size & 1) != 0) {
                ts[n] = ts[size - 1];
                total[n] = total[size - 1];
                n++;
            }
            size = n;
        }
    }

    private final Map<String, Series> devices = new TreeMap<>();
    private long events;

    /** One {@code [memory]} event: {@code device} names its row ({@code GPU 0}, {@code CPU}). */
    void add(String device, long tsNs, long totalAllocated) {
        Series s = devices.get(device);
        if (s == null) {
            if (devices.size() == MAX_DEVICES) {
                return;
            }
            s = new Series();
            devices.put(device, s);
        }
        s.add(tsNs, totalAllocated);
        events++;
    }

    /** The same series under names {@code rename} gives (distinct names stay distinct). */
    MemoryTimeline relabel(java.util.function.Function<String, String> rename) {
        MemoryTimeline out = new MemoryTimeline();
        devices.forEach((k, v) -> out.devices.put(rename.apply(k), v));
        out.events = events;
        return out;
    }

    /** The series by device, in name order. */
    Map<String, Series> devices() {
        return devices;
    }

    /** Memory events read. */
    long events() {
        return events;
    }
}
