package org.flagos.trace.report;

import java.io.IOException;
import java.util.Arrays;
import org.flagos.trace.tracefile.TraceEvent;

/**
 * The events of a stretch of a trace that the summary reads, kept in columns in the order read: complete
 * events ({@code "ph":"X"}) and {@code [memory]} instants, with the fields {@link TraceFile}'s reader takes
 * of them. A thread that reads a chunk of the file fills one; the summary's reader then takes its events in
 * file order ({@link #replay}), exactly as if it had been handed them by the walk.
 */
final class SummaryEvents {
    /** An event the summary does not read. */
    static final byte SKIP = 0;
    /** A complete event. */
    static final byte COMPLETE = 1;
    /** A {@code [memory]} instant. */
    static final byte MEMORY = 2;
    private static final byte UNUSABLE = 4;

    /** What the summary's reader does with each event; the same whether it comes from the walk or from a chunk's columns. */
    interface Sink {
        /** A complete event ({@link TraceEvent}'s fields). */
        void complete(String cat, String name, String pid, String tid, long tsNs, long durNs, boolean unusable, long externalId,
                      long inElems, long outElems, String dtype) throws IOException;

        /** A {@code [memory]} instant ({@link TraceEvent}'s fields). */
        void memory(long totalAllocated, long tsNs, boolean unusable, long deviceType, long device, long pidNumber);
    }

    /** Which events the summary reads: complete events and {@code [memory]} instants; the rest are skipped. */
    static byte kind(TraceEvent e) {
        if ("i".equals(e.ph()) && "[memory]".equals(e.name())) {
            return MEMORY;
        }
        return "X".equals(e.ph()) ? COMPLETE : SKIP;
    }

    /** Hands {@code e} to {@code sink} by its kind: the one-thread walk's way, and {@link #replay}'s. */
    static void handOn(TraceEvent e, Sink sink) throws IOException {
        switch (kind(e)) {
            case MEMORY -> sink.memory(e.totalAllocated(), e.tsNs(), e.unusable(), e.deviceType(), e.device(), e.pidNumber());
            case COMPLETE -> sink.complete(e.cat(), e.name(), e.pid(), e.tid(), e.tsNs(), e.durNs(), e.unusable(), e.externalId(),
                    e.inElems(), e.outElems(), e.dtype());
            default -> { }
        }
    }

    private int size;
    private byte[] kinds = new byte[1024];
    private String[] cats = new String[1024];
    private String[] names = new String[1024];
    private String[] pids = new String[1024];
    private String[] tids = new String[1024];
    private String[] dtypes = new String[1024];
    private long[] ts = new long[1024];
    private long[] durs = new long[1024];
    private long[] links = new long[1024];
    private long[] inElems = new long[1024];
    private long[] outElems = new long[1024];
    /** The {@code [memory]} instants' own fields, in their order among the events: total allocated, device type, device, pid. */
    private int memories;
    private long[] memory = new long[4 * 16];

    /** Events kept. */
    int size() {
        return size;
    }

    /** Keeps {@code e} when the summary reads it. */
    void add(TraceEvent e) {
        byte kind = kind(e);
        if (kind == SKIP) {
            return;
        }
        if (size == kinds.length) {
            grow();
        }
        int i = size++;
        kinds[i] = (byte) (kind | (e.unusable() ? UNUSABLE : 0));
        ts[i] = e.tsNs();
        if (kind == MEMORY) {
            if (4 * memories == memory.length) {
                memory = Arrays.copyOf(memory, 2 * memory.length);
            }
            int m = 4 * memories++;
            memory[m] = e.totalAllocated();
            memory[m + 1] = e.deviceType();
            memory[m + 2] = e.device();
            memory[m + 3] = e.pidNumber();
            return;
        }
        cats[i] = e.cat();
        names[i] = e.name();
        pids[i] = e.pid();
        tids[i] = e.tid();
        dtypes[i] = e.dtype();
        durs[i] = e.durNs();
        links[i] = e.externalId();
        inElems[i] = e.inElems();
        outElems[i] = e.outElems();
    }

    /**
     * Hands the kept events {@code from} (inclusive) to {@code to} (exclusive) to {@code sink} in their order;
     * {@code memoryFrom} is the number of {@code [memory]} instants among the events before {@code from}.
     */
    void replay(int from, int to, int memoryFrom, Sink sink) throws IOException {
        int m = 4 * memoryFrom;
        for (int i = from; i < to; i++) {
            byte k = kinds[i];
            boolean unusable = (k & UNUSABLE) != 0;
            if ((k & ~UNUSABLE) == MEMORY) {
                sink.memory(memory[m], ts[i], unusable, memory[m + 1], memory[m + 2], memory[m + 3]);
                m += 4;
            } else {
                sink.complete(cats[i], names[i], pids[i], tids[i], ts[i], durs[i], unusable, links[i], inElems[i], outElems[i],
                        dtypes[i]);
            }
        }
    }

    /** The {@code [memory]} instants kept so far. */
    int memories() {
        return memories;
    }

    private void grow() {
        int n = 2 * kinds.length;
        kinds = Arrays.copyOf(kinds, n);
        cats = Arrays.copyOf(cats, n);
        names = Arrays.copyOf(names, n);
        pids = Arrays.copyOf(pids, n);
        tids = Arrays.copyOf(tids, n);
        dtypes = Arrays.copyOf(dtypes, n);
        ts = Arrays.copyOf(ts, n);
        durs = Arrays.copyOf(durs, n);
        links = Arrays.copyOf(links, n);
        inElems = Arrays.copyOf(inElems, n);
        outElems = Arrays.copyOf(outElems, n);
    }
}
