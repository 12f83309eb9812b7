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
        return kind(e.ph(), e.name());
    }

    /** {@link #kind(TraceEvent)} of an event whose {@code ph} and {@code name} are these (null: none). */
    static byte kind(String ph, String name) {
        if ("i".equals(ph) && "[memory]".equals(name)) {
            return MEMORY;
        }
        return "X".equals(ph) ? COMPLETE : SKIP;
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
    private byte[] kinds;
    private String[] cats;
    private String[] names;
    private String[] pids;
    private String[] tids;
    private String[] dtypes;
    private long[] ts;
    private long[] durs;
    private long[] links;
    private long[] inElems;
    private long[] outElems;
    /** The {@code [memory]} instants' own fields, in their order among the events: total allocated, device type, device, pid. */
    private int memories;
    private long[] memory = new long[4 * 16];

    /** Columns for 1,024 events to start with. */
    SummaryEvents() {
        this(1024);
    }

    /** Columns for {@code capacity} events to start with (they grow past it). */
    SummaryEvents(int capacity) {
        int n = Math.max(16, capacity);
        kinds = new byte[n];
        cats = new String[n];
        names = new String[n];
        pids = new String[n];
        tids = new String[n];
        dtypes = new String[n];
        ts = new long[n];
        durs = new long[n];
        links = new long[n];
        inElems = new long[n];
        outElems = new long[n];
    }

    /** Forgets the events kept, its columns kept for the next ones. */
    void clear() {
        size = 0;
        memories = 0;
    }

    /** Events kept. */
    int size() {
        return size;
    }

    /** What {@link #add} hands an event on to: this columns' own {@link #complete} and {@link #memory}. */
    private final Sink keep = new Sink() {
        @Override
        public void complete(String cat, String name, String pid, String tid, long tsNs, long durNs, boolean unusable,
                             long externalId, long inElems, long outElems, String dtype) {
            SummaryEvents.this.complete(cat, name, pid, tid, tsNs, durNs, unusable, externalId, inElems, outElems, dtype);
        }

        @Override
        public void memory(long totalAllocated, long tsNs, boolean unusable, long deviceType, long device, long pidNumber) {
            SummaryEvents.this.memory(totalAllocated, tsNs, unusable, deviceType, device, pidNumber);
        }
    };

    /** Keeps {@code e} when the summary reads it. */
    void add(TraceEvent e) throws IOException {
        handOn(e, keep);
    }

    /** Keeps a complete event ({@link Sink#complete}'s fields). */
    void complete(String cat, String name, String pid, String tid, long tsNs, long durNs, boolean unusable, long externalId,
                         long inElems, long outElems, String dtype) {
        int i = next(COMPLETE, tsNs, unusable);
        cats[i] = cat;
        names[i] = name;
        pids[i] = pid;
        tids[i] = tid;
        dtypes[i] = dtype;
        durs[i] = durNs;
        links[i] = externalId;
        this.inElems[i] = inElems;
        this.outElems[i] = outElems;
    }

    /** Keeps a {@code [memory]} instant ({@link Sink#memory}'s fields). */
    void memory(long totalAllocated, long tsNs, boolean unusable, long deviceType, long device, long pidNumber) {
        next(MEMORY, tsNs, unusable);
        if (4 * memories == memory.length) {
            memory = Arrays.copyOf(memory, 2 * memory.length);
        }
        int m = 4 * memories++;
        memory[m] = totalAllocated;
        memory[m + 1] = deviceType;
        memory[m + 2] = device;
        memory[m + 3] = pidNumber;
    }

    /** The index of a new event of {@code kind}, its kind and time kept. */
    private int next(byte kind, long tsNs, boolean unusable) {
        if (size == kinds.length) {
            grow();
        }
        int i = size++;
        kinds[i] = (byte) (kind | (unusable ? UNUSABLE : 0));
        ts[i] = tsNs;
        return i;
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
