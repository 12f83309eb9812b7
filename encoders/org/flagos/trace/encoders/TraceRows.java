package org.flagos.trace.encoders;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.util.Arrays;
import org.agrona.collections.LongHashSet;
import org.flagos.trace.stages.TraceSink;

/**
 * The rows a trace draws on (the host process and its threads, each device and its streams) and
 * their labels: the {@code M} events torch writes, so viewers name and order rows as they do for
 * a torch trace. Rows are noted as events are written and labelled at the end of the capture.
 */
final class TraceRows {
    /** torch sorts device processes after the host, by device ordinal. */
    private static final long DEVICE_SORT_BASE = 5_000_000L;

    private final LongHashSet streams = new LongHashSet(64);
    private final LongHashSet hostThreads = new LongHashSet(64);
    private final org.agrona.collections.Long2ObjectHashMap<String> threadNames = new org.agrona.collections.Long2ObjectHashMap<>();
    private final EventBytes time = new EventBytes();
    private boolean[] devices = new boolean[8];
    private long lastHostThread = -1;
    private long lastStreamKey = -1;

    void hostThread(long thread) {
        if (thread != lastHostThread) {
            hostThreads.add(thread);
            lastHostThread = thread;
        }
    }

    /** Names a host row as the program knows its thread; the first name a row is given stays. */
    void hostThreadName(long thread, String name) {
        threadNames.putIfAbsent(thread, name);
    }

    void deviceStream(int device, int stream) {
        long key = ((long) device << 32) | (stream & 0xFFFF_FFFFL);
        if (key == lastStreamKey) {
            return;
        }
        lastStreamKey = key;
        if (device >= 0) {
            if (device >= devices.length) {
                devices = Arrays.copyOf(devices, device + 8);
            }
            devices[device] = true;
        }
        streams.add(key);
    }

    /** Writes every row's labels, stamped {@code tsOffsetNs} after the trace's base time; returns the events written. */
    int writeLabels(JsonGenerator g, long hostPid, String process, long tsOffsetNs) throws IOException {
        int written = 3;
        label(g, "process_name", hostPid, 0, tsOffsetNs, "name", process);
        label(g, "process_labels", hostPid, 0, tsOffsetNs, "labels", "CPU");
        sortIndex(g, "process_sort_index", hostPid, 0, tsOffsetNs, hostPid);
        for (int d = 0; d < devices.length; d++) {
            if (devices[d]) {
                label(g, "process_name", d, 0, tsOffsetNs, "name", process);
                label(g, "process_labels", d, 0, tsOffsetNs, "labels", "GPU " + d);
                sortIndex(g, "process_sort_index", d, 0, tsOffsetNs, DEVICE_SORT_BASE + d);
                written += 3;
            }
        }
        for (long key : sortedKeys(streams)) {
            int device = (int) (key >>> 32);
            int stream = (int) key;
            if (stream == -1) {
                label(g, "thread_name", device, TraceSink.DEVICE_ROW, tsOffsetNs, "name", "Device " + device);
                sortIndex(g, "thread_sort_index", device, TraceSink.DEVICE_ROW, tsOffsetNs, -1);
                written += 2;
                continue;
            }
            if (stream == TraceSink.UNIFIED_MEMORY_ROW) {
                label(g, "thread_name", device, stream, tsOffsetNs, "name", "Unified Memory");
                sortIndex(g, "thread_sort_index", device, stream, tsOffsetNs, stream);
                written += 2;
                continue;
            }
            label(g, "thread_name", device, stream, tsOffsetNs, "name", "stream " + stream + " ");
            sortIndex(g, "thread_sort_index", device, stream, tsOffsetNs, stream);
            written += 2;
        }
        for (long thread : sortedKeys(hostThreads)) {
            String known = threadNames.get(thread);
            label(g, "thread_name", hostPid, thread, tsOffsetNs, "name",
                    known != null ? known : "thread " + thread + " (" + process + ")");
            sortIndex(g, "thread_sort_index", hostPid, thread, tsOffsetNs, thread);
            written += 2;
        }
        return written;
    }

    private static long[] sortedKeys(LongHashSet set) {
        long[] keys = new long[set.size()];
        int n = 0;
        for (LongHashSet.LongIterator it = set.iterator(); it.hasNext(); ) {
            keys[n++] = it.nextValue();
        }
        Arrays.sort(keys);
        return keys;
    }

    private void label(JsonGenerator g, String name, long pid, long tid, long tsNs, String argName, String value) throws IOException {
        start(g, name, pid, tid, tsNs);
        org.flagos.trace.model.JsonText.writeStringField(g, argName, value);
        g.writeEndObject();
        g.writeEndObject();
    }

    private void sortIndex(JsonGenerator g, String name, long pid, long tid, long tsNs, long index) throws IOException {
        start(g, name, pid, tid, tsNs);
        g.writeNumberField("sort_index", index);
        g.writeEndObject();
        g.writeEndObject();
    }

    /** An {@code M} row up to its open {@code args} object. */
    private void start(JsonGenerator g, String name, long pid, long tid, long tsNs) throws IOException {
        g.writeStartObject();
        g.writeStringField("name", name);
        g.writeStringField("ph", "M");
        g.writeFieldName("ts");
        g.writeRawValue(time.reset().micros(tsNs));
        g.writeNumberField("pid", pid);
        g.writeNumberField("tid", tid);
        g.writeObjectFieldStart("args");
    }
}
