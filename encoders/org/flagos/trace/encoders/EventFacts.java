package org.flagos.trace.encoders;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * The {@code events} table's finishing rule (docs/tables.md), in one place: what the rows of a trace share (each
 * input's name, base time and pid stride; each slot's rank and host; a merged trace's pids) and how a row read
 * from the trace becomes a row of the table once those facts are known. A merged trace's row's slot from its pid
 * ({@code (slot + 1) * stride + n}), any other row's its input's; the rank of the slot, or {@code -1 - slot}
 * ({@link EventTable#rank}); the slot's host; a merged trace's pid back to the process's own; {@code ts_ns} the
 * row's time plus its input's base; the copy kind ({@link EventTable.CopyKinds}); device columns that do not fit
 * an INTEGER null ({@link EventTable#device}).
 *
 * <p>{@link EventTable} ({@code flagtrace tables}) keeps its rows before it writes them (sorted by rank, slot and
 * {@code ts_ns}), and so applies each part when it has what it needs: the copy kind and devices as a row is
 * added, the slot, rank and time as the rows are sorted, the pid and host as each is written. The Spark data
 * source learns the facts in a first pass over the trace (this class is the {@link EventRows} that pass reads
 * into: it keeps the facts and drops the rows) and then finishes each row as it comes with {@link #finish},
 * which applies the same parts. Not thread-safe.
 */
public final class EventFacts implements EventRows {
    private final Map<Integer, long[]> sources = new HashMap<>(); // base ns, pid stride
    private final Map<Integer, String> sourceNames = new HashMap<>();
    private final Map<Integer, Integer> slotRanks = new HashMap<>();
    private final Map<Integer, String> slotHosts = new HashMap<>();
    private final Map<Integer, Map<Long, Long>> pids = new HashMap<>();
    private final EventTable.CopyKinds copyKinds = new EventTable.CopyKinds();

    @Override
    public void source(int source, String name, long baseNs, long pidStride) {
        sources.put(source, new long[] {baseNs, pidStride});
        if (name != null) {
            sourceNames.put(source, name);
        }
    }

    @Override
    public void slot(int slot, Integer rank, String host) {
        slotRanks.put(slot, rank);
        slotHosts.put(slot, host);
    }

    @Override
    public void pid(int slot, long tracePid, long originalPid) {
        pids.computeIfAbsent(slot, s -> new HashMap<>()).put(tracePid, originalPid);
    }

    /** Drops the row: these are the facts only ({@link #finish} finishes a row once they are all known). */
    @Override
    public void add(EventTable.Row r) {
        // a row states no fact
    }

    /** An input's base time (epoch ns; 0 when unknown). */
    public long baseNs(int source) {
        long[] src = sources.get(source);
        return src == null ? 0 : src[0];
    }

    /** Whether an input is a merged trace (it has a pid stride). */
    public boolean merged(int source) {
        long[] src = sources.get(source);
        return src != null && src[1] > 0;
    }

    /** Whether an input's facts were given. */
    public boolean known(int source) {
        return sources.containsKey(source);
    }

    /** An input's name, or {@code orElse}. */
    public String name(int source, String orElse) {
        return sourceNames.getOrDefault(source, orElse);
    }

    /** The slot of a row of {@code source} with pid {@code pid}: a merged trace's pid names it. */
    public int slot(int source, long pid) throws IOException {
        long[] src = sources.get(source);
        long stride = src == null ? 0 : src[1];
        if (stride <= 0 || pid == EventTable.NONE || pid < stride) {
            return source;
        }
        long slot = pid / stride - 1;
        if (slot > Integer.MAX_VALUE) {
            throw new IOException("cannot write the events table: pid " + pid + " of a merged trace names no slot (past "
                    + Integer.MAX_VALUE + ")");
        }
        return (int) slot;
    }

    /** The rank column of a slot's rows ({@link EventTable#rank}). */
    public int rank(int slot) {
        return EventTable.rank(slotRanks.get(slot), slot);
    }

    /** The host column of a slot's rows (null when unknown). */
    public String host(int slot) {
        return slotHosts.get(slot);
    }

    /** A row's {@code ts_ns}: its time from its input's base, plus the base. */
    public long tsNs(int source, long ts) throws IOException {
        long[] src = sources.get(source);
        try {
            return src == null ? ts : Math.addExact(ts, src[0]);
        } catch (ArithmeticException e) {
            throw new IOException("cannot write the events table: a time of " + ts + " ns after the base " + src[0]
                    + " ns is past any BIGINT", e);
        }
    }

    /** The pid column: a merged trace's pid of {@code slot} back to the process's own ({@link EventTable#NONE}: none). */
    public long pid(int slot, long pid) {
        Map<Long, Long> map = pids.get(slot);
        if (map != null && pid != EventTable.NONE) {
            Long original = map.get(pid);
            if (original != null) {
                return original;
            }
        }
        return pid;
    }

    /** The copy_kind column of a row of category {@code cat} and name {@code name}. */
    public String copyKind(String cat, String name) {
        return copyKinds.of(cat, name);
    }

    /** A finished row's columns that are not {@link EventTable.Row}'s own. */
    public static final class Finished {
        public int rank;
        public int slot;
        public String host;
        public long tsNs;
        public String copyKind;
    }

    /**
     * Finishes {@code r} with the facts known so far: its pid (back to the process's own) and device columns (null
     * when too large) in place, the rest into {@code into}, which is returned.
     */
    public Finished finish(EventTable.Row r, Finished into) throws IOException {
        int slot = slot(r.source, r.pid);
        into.slot = slot;
        into.rank = rank(slot);
        into.host = host(slot);
        into.tsNs = tsNs(r.source, r.ts);
        into.copyKind = copyKind(r.cat, r.name);
        r.pid = pid(slot, r.pid);
        r.device = EventTable.device(r.device);
        r.fromDevice = EventTable.device(r.fromDevice);
        r.toDevice = EventTable.device(r.toDevice);
        r.groupSize = EventTable.device(r.groupSize);
        return into;
    }
}
