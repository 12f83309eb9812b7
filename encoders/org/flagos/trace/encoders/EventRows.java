package org.flagos.trace.encoders;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Where a trace's rows go as they are read ({@link Sink}: {@code TraceTables} hands each event and then the
 * facts the rows share), and the table's finishing rule in Java ({@link Finished}) for a reader that learns the
 * facts first: the Spark data source reads each trace twice, once for its facts and once for its rows, and
 * finishes each row as it comes, with no scratch file and no engine. {@link EventTable} finishes the same
 * rows in SQL (its {@code SELECT}); the spark tests hold the two equal, row for row, on real traces.
 */
public final class EventRows {
    private EventRows() {
    }

    /** What a trace's reader hands on: {@link EventTable}'s four calls. */
    public interface Sink {
        /** One input's base time (epoch ns) and, for a merged trace, its pid stride (0 otherwise). */
        void source(int source, long baseNs, long pidStride);

        /** A slot's rank (null when its trace names none) and host (null when unknown). */
        void slot(int slot, Integer rank, String host);

        /** A merged trace's pid {@code tracePid} of {@code slot} is {@code originalPid} ({@link EventTable#NONE}: none). */
        void pid(int slot, long tracePid, long originalPid);

        /** One event, its times from its source's base. */
        void add(EventTable.Row r) throws IOException;
    }

    /** A finished row: the columns of {@link EventTable#COLUMNS} are these and the row's own (pid already the process's own). */
    public interface Out {
        void row(int rank, int slot, String host, long tsNs, String copyKind, EventTable.Row r) throws IOException;
    }

    /**
     * The finishing rule of {@link EventTable}'s {@code SELECT}, in Java: a merged trace's row's slot from its pid
     * ({@code (slot + 1) * stride + n}), else its source; the rank of the slot, or {@code -1 - slot}
     * ({@link EventTable#rank}); the slot's host; a merged trace's pid back to the process's own; {@code ts_ns}
     * the row's time plus its source's base; the copy kind ({@link EventTable.CopyKinds}); device columns that
     * do not fit an INTEGER null. The facts must be known before the rows: read the trace once into
     * {@link #learning()}, then again into this sink (whose facts calls, the same again, are ignored).
     */
    public static final class Finished implements Sink {
        private final Out out;
        private final Map<Integer, long[]> sources = new HashMap<>();
        private final Map<Integer, Integer> ranks = new HashMap<>();
        private final Map<Integer, String> hosts = new HashMap<>();
        private final Map<Integer, Map<Long, Long>> pids = new HashMap<>();
        private final EventTable.CopyKinds copyKinds = new EventTable.CopyKinds();

        public Finished(Out out) {
            this.out = out;
        }

        /** The sink of the first pass: keeps the facts, drops the rows. */
        public Sink learning() {
            return new Sink() {
                @Override
                public void source(int source, long baseNs, long pidStride) {
                    sources.put(source, new long[] {baseNs, pidStride});
                }

                @Override
                public void slot(int slot, Integer rank, String host) {
                    if (rank != null) {
                        ranks.put(slot, rank);
                    }
                    if (host != null) {
                        hosts.put(slot, host);
                    }
                }

                @Override
                public void pid(int slot, long tracePid, long originalPid) {
                    pids.computeIfAbsent(slot, s -> new HashMap<>()).put(tracePid, originalPid);
                }

                @Override
                public void add(EventTable.Row r) {
                    // the rows come again in the second pass
                }
            };
        }

        @Override
        public void source(int source, long baseNs, long pidStride) {
            // learnt in the first pass
        }

        @Override
        public void slot(int slot, Integer rank, String host) {
            // learnt in the first pass
        }

        @Override
        public void pid(int slot, long tracePid, long originalPid) {
            // learnt in the first pass
        }

        @Override
        public void add(EventTable.Row r) throws IOException {
            long[] src = sources.get(r.source);
            long base = src == null ? 0 : src[0];
            long stride = src == null ? 0 : src[1];
            int slot = stride > 0 && r.pid != EventTable.NONE && r.pid >= stride ? (int) (r.pid / stride - 1) : r.source;
            Integer rank = ranks.get(slot);
            Map<Long, Long> slotPids = pids.get(slot);
            if (slotPids != null && r.pid != EventTable.NONE) {
                Long own = slotPids.get(r.pid);
                if (own != null) {
                    r.pid = own;
                }
            }
            r.device = EventTable.device(r.device);
            r.fromDevice = EventTable.device(r.fromDevice);
            r.toDevice = EventTable.device(r.toDevice);
            r.groupSize = EventTable.device(r.groupSize);
            out.row(EventTable.rank(rank, slot), slot, hosts.get(slot), r.ts + base, copyKinds.of(r.cat, r.name), r);
        }
    }
}
