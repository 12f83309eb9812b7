package org.flagos.trace.report;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.flagos.trace.encoders.EventRows;
import org.flagos.trace.encoders.EventTable;
import org.flagos.trace.tracefile.TraceBlocks;
import org.flagos.trace.tracefile.TraceEvent;
import org.flagos.trace.tracefile.TraceFormatException;
import org.flagos.trace.tracefile.TraceLimits;
import org.flagos.trace.tracefile.TraceReader;

/**
 * Trace files into the {@code events} table (docs/tables.md): torch-compatible JSON of either schema
 * (object or bare array, gzipped or not), PyTorch's own, flagtrace's, and a merge's, where each merge
 * slot is a process with its rank. One streaming pass per file: each event becomes a row as it is read
 * and nothing of it is kept, so a trace of any size is read in the memory of one event; what the rows
 * share (rank, host, base time, a merge's slots and pids) may come after the events and is filled in
 * when the table is written ({@link EventTable}, or any {@link EventRows}).
 */
public final class TraceTables {
    /**
     * The categories whose {@code args.bytes} are the bytes the device moved or set (torch's and 2021's
     * names), or the driver migrated (flagtrace's unified memory).
     */
    private static final java.util.Set<String> DEVICE_BYTES = java.util.Set.of("gpu_memcpy", "gpu_memset", "Memcpy", "Memset",
            "unified_memory");
    /**
     * The categories of a copy (torch's and 2021's names), whose {@code args.fromDevice} ... {@code toContext}
     * are a peer copy's two ends.
     */
    private static final java.util.Set<String> COPIES = java.util.Set.of("gpu_memcpy", "Memcpy");

    private final EventRows table;
    private final EventTable.Row row = new EventTable.Row();
    private int inputs;
    private long rows;
    private long metadata;
    private long untimed;
    private boolean merged;
    private Integer givenRank;
    private final java.util.List<String> unranked = new java.util.ArrayList<>();

    /** Rows go to {@code table}: {@link EventTable}, or any {@link EventRows} (the Spark data source's reader). */
    public TraceTables(EventRows table) {
        this.table = table;
    }

    /** Events written as rows so far. */
    public long rows() {
        return rows;
    }

    /** Metadata events ({@code ph} {@code M}: row names and sort indexes) left out. */
    public long metadataLeftOut() {
        return metadata;
    }

    /**
     * The rank of a trace that names none ({@code flagtrace tables --rank N}): a trace of one process only;
     * a trace that names another rank, or a merged trace, is refused.
     */
    public void giveRank(int rank) {
        givenRank = rank;
    }

    /** Whether the trace read is a merged one (its slots are the processes). */
    public boolean merged() {
        return merged;
    }

    /** The inputs (a merged trace's slots: "TRACE slot S") whose rows have no rank of their own, in reading order. */
    public java.util.List<String> unranked() {
        return java.util.List.copyOf(unranked);
    }

    private TraceBlocks blocks;

    /** The blocks around the events of the last trace read (its rank, base time, clock anchors, a merge's slots). */
    public TraceBlocks blocks() {
        return blocks;
    }

    /** Events left out for want of a usable {@code ts}. */
    public long untimedLeftOut() {
        return untimed;
    }

    /**
     * Reads one trace file into the table, as the next input (its slot, unless it is a merge); a merged
     * trace is refused beside any other input, whose slots would collide with its own.
     */
    public void read(Path path) throws IOException {
        int source = inputs++;
        Pass pass = new Pass(source);
        pass.finish(path, TraceReader.read(path, "not a trace; name trace files (TRACE.json or TRACE.json.gz)",
                TraceReader.Options.FIELDS, pass));
    }

    /**
     * As {@link #read(Path)}, from the bytes {@code raw} of the file {@code path} (opened elsewhere: a Hadoop file
     * system's stream, on a Spark executor); closes {@code raw}.
     */
    public void read(Path path, java.io.InputStream raw) throws IOException {
        int source = inputs++;
        Pass pass = new Pass(source);
        pass.finish(path, TraceReader.read(raw, path, TraceReader.Options.FIELDS, pass));
    }

    /** One file's pass. */
    private final class Pass implements TraceReader.Visitor {
        final int source;

        Pass(int source) {
            this.source = source;
        }

        void finish(Path path, TraceBlocks blocks) throws IOException {
            TraceTables.this.blocks = blocks;
            if (blocks.merged() && inputs > 1) {
                throw new TraceFormatException(path + " is a merged trace: give it alone (its slots are the ranks), or merge"
                        + " every trace into one first");
            }
            if (blocks.merged()) {
                merged = true;
            } else if (merged) {
                throw new TraceFormatException(path + " follows a merged trace: give the merged trace alone, or merge every"
                        + " trace into one first");
            }
            if (givenRank != null && blocks.merged()) {
                throw new TraceFormatException(path + " is a merged trace, whose slots name their ranks: a given rank is for"
                        + " the trace of one process");
            }
            if (givenRank != null && blocks.rank() >= 0 && blocks.rank() != givenRank) {
                throw new TraceFormatException(path + " names rank " + blocks.rank() + ", not the rank given (" + givenRank + ")");
            }
            table.source(source, path.getFileName() == null ? path.toString() : path.getFileName().toString(), blocks.baseNs(), blocks.merged() ? TraceLimits.PID_STRIDE : 0);
            if (!blocks.merged()) {
                Integer rank = blocks.rank() >= 0 ? Integer.valueOf(blocks.rank()) : givenRank;
                if (rank == null) {
                    unranked.add(path.toString());
                }
                table.slot(source, rank, blocks.host());
                return;
            }
            for (TraceBlocks.MergeInput in : blocks.mergeInputs().values()) {
                if (in.rank() < 0) {
                    unranked.add(path + " slot " + in.slot());
                }
                table.slot(in.slot(), in.rank() >= 0 ? in.rank() : null, in.host());
                for (Map.Entry<String, Long> pid : in.pids().entrySet()) {
                    table.pid(in.slot(), pid.getValue(), number(pid.getKey()));
                }
            }
        }

        /** One event: a row, unless it is metadata or has no usable time. */
        @Override
        public void event(TraceEvent e) throws IOException {
            if ("M".equals(e.ph())) {
                metadata++;
                return;
            }
            if (e.tsNs() == TraceEvent.NONE || e.unusable()) {
                untimed++;
                return;
            }
            EventTable.Row r = row.reset();
            r.source = source;
            r.ph = e.ph();
            r.cat = e.cat();
            r.name = e.name();
            r.pid = e.pidNumber();
            r.tid = e.tidNumber();
            r.ts = e.tsNs();
            r.dur = e.durNs();
            r.externalId = e.externalId();
            r.correlation = e.correlation();
            r.device = narrow(e.device());
            r.stream = e.stream();
            r.totalAllocated = e.totalAllocated();
            r.totalReserved = e.totalReserved();
            if (r.cat != null && DEVICE_BYTES.contains(r.cat)) {
                r.bytes = e.bytes();
            } else if ("[memory]".equals(r.name)) {
                r.bytes = e.memoryBytes();
            }
            if (r.cat != null && COPIES.contains(r.cat)) {
                r.fromDevice = narrow(e.fromDevice());
                r.toDevice = narrow(e.toDevice());
                r.fromContext = e.fromContext();
                r.toContext = e.toContext();
            }
            r.inElems = e.inElems();
            r.outElems = e.outElems();
            r.groupSize = narrow(e.groupSize());
            r.dtype = e.dtype();
            r.processGroup = e.processGroup();
            r.flowId = "s".equals(r.ph) || "f".equals(r.ph) || "t".equals(r.ph) ? e.id() : EventTable.NONE; // an id of another phase (async events) is not an arrow's
            table.add(r);
            rows++;
        }
    }

    /** A device index fits an INTEGER; anything else is no device. */
    private static long narrow(long v) {
        return v == EventTable.NONE || v < Integer.MIN_VALUE || v > Integer.MAX_VALUE ? EventTable.NONE : v;
    }

    /** A pid's text as its number, or {@link EventTable#NONE}. */
    private static long number(String s) {
        if (s.isEmpty() || s.length() > 20) {
            return EventTable.NONE;
        }
        try {
            long v = Long.parseLong(s);
            return v == EventTable.NONE ? EventTable.NONE : v;
        } catch (NumberFormatException e) {
            return EventTable.NONE;
        }
    }
}
