package org.flagos.trace.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The complete events of one trace that the summary and the report use, in columns: class, name,
 * row (a pid/tid pair), start and duration in nanoseconds, External id. Names and rows are interned,
 * so a trace of millions of launches of a few kernels costs a few dozen bytes an event.
 */
public final class TraceEvents {
    /** No External id in the event's args. */
    public static final long NO_EXTERNAL_ID = Long.MIN_VALUE;

    private final List<String> names = new ArrayList<>();
    private final Map<String, Integer> nameIds = new HashMap<>();
    private final List<String> rowPids = new ArrayList<>();
    private final List<String> rowTids = new ArrayList<>();
    private final Map<String, Integer> rowIds = new HashMap<>();
    private final long maxEvents;

    byte[] cls = new byte[1024];
    int[] name = new int[1024];
    int[] row = new int[1024];
    long[] start = new long[1024];
    long[] dur = new long[1024];
    long[] externalId = new long[1024];
    int size;

    TraceEvents(long maxEvents) {
        this.maxEvents = maxEvents;
    }

    /** Adds an event; false when the trace holds more events than this reader was allowed to keep. */
    boolean add(EventClass c, String eventName, String pid, String tid, long startNs, long durNs, long external) {
        if (size == maxEvents) {
            return false;
        }
        if (size == cls.length) {
            int n = (int) Math.min(maxEvents, (long) size * 2);
            cls = Arrays.copyOf(cls, n);
            name = Arrays.copyOf(name, n);
            row = Arrays.copyOf(row, n);
            start = Arrays.copyOf(start, n);
            dur = Arrays.copyOf(dur, n);
            externalId = Arrays.copyOf(externalId, n);
        }
        cls[size] = (byte) c.ordinal();
        name[size] = nameId(eventName);
        row[size] = rowId(pid, tid);
        start[size] = startNs;
        dur[size] = durNs;
        externalId[size] = external;
        size++;
        return true;
    }

    private int nameId(String s) {
        Integer id = nameIds.get(s);
        if (id == null) {
            id = names.size();
            names.add(s);
            nameIds.put(s, id);
        }
        return id;
    }

    private int rowId(String pid, String tid) {
        String key = pid + '\u0000' + tid;
        Integer id = rowIds.get(key);
        if (id == null) {
            id = rowPids.size();
            rowPids.add(pid);
            rowTids.add(tid);
            rowIds.put(key, id);
        }
        return id;
    }

    public int size() {
        return size;
    }

    public EventClass eventClass(int i) {
        return EVENT_CLASSES[cls[i]];
    }

    public String name(int i) {
        return names.get(name[i]);
    }

    public int nameId(int i) {
        return name[i];
    }

    public String nameOf(int nameId) {
        return names.get(nameId);
    }

    public int names() {
        return names.size();
    }

    public int row(int i) {
        return row[i];
    }

    public int rows() {
        return rowPids.size();
    }

    /** The pid of row {@code r} as the trace wrote it (a number or a label). */
    public String rowPid(int r) {
        return rowPids.get(r);
    }

    /** The tid of row {@code r} as the trace wrote it. */
    public String rowTid(int r) {
        return rowTids.get(r);
    }

    public long startNs(int i) {
        return start[i];
    }

    public long durNs(int i) {
        return dur[i];
    }

    public long endNs(int i) {
        return start[i] + dur[i];
    }

    /** The event's External id, or {@link #NO_EXTERNAL_ID}. */
    public long externalId(int i) {
        return externalId[i];
    }

    private static final EventClass[] EVENT_CLASSES = EventClass.values();
}
