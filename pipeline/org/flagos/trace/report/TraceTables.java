package org.flagos.trace.report;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.file.Path;
import org.flagos.trace.stages.EventTable;

/**
 * Trace files into the {@code events} table (docs/tables.md): torch-compatible JSON of either schema
 * (object or bare array, gzipped or not), PyTorch's own, flagtrace's, and a merge's, where each merge
 * slot is a process with its rank. One streaming pass per file: each event becomes a row as it is read
 * and nothing of it is kept, so a trace of any size is read in the memory of one event; what the rows
 * share (rank, host, base time, a merge's slots and pids) may come after the events and is filled in
 * when the table is written ({@link EventTable}).
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

    private final EventTable table;
    private final EventTable.Row row = new EventTable.Row();
    private int inputs;
    private long rows;
    private long metadata;
    private long untimed;
    private boolean merged;

    /** Rows go to {@code table}. */
    public TraceTables(EventTable table) {
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

    /** Events left out for want of a usable {@code ts}. */
    public long untimedLeftOut() {
        return untimed;
    }

    /**
     * Reads one trace file into the table, as the next input (its slot, unless it is a merge); a merged
     * trace is refused beside any other input, whose slots would collide with its own.
     */
    public void read(Path path) throws IOException {
        TraceInput.read(path, "not a trace; name trace files (TRACE.json or TRACE.json.gz)", in -> {
            int source = inputs++;
            if (PerfettoTraceReader.looksLike(in)) {
                throw new TraceFormatException(path + " is a Perfetto trace; tables reads JSON traces (replay the capture with"
                        + " -o NAME.parquet for its table, or with -o NAME.json for a trace tables reads)");
            }
            try (JsonParser p = TraceInput.parser(in)) {
                new Pass(path, source).read(p);
            }
            return null;
        });
    }

    /** One file's pass. */
    /** Inputs a merged trace's merge block may list (ranks of one job); more is refused, not held. */
    static final int MAX_MERGE_INPUTS = 1 << 16;
    /** Pids per input in a merge block: a merge gives each input 1,000 pids, the first its own. */
    static final int MAX_PIDS_PER_INPUT = 999;
    /** A host name longer than this is left out of the table (a host name has at most 255 bytes). */
    static final int MAX_HOST_CHARS = 1024;

    private int mergeInputs;

    private final class Pass implements TraceTopLevel.Visitor {
        final Path path;
        final int source;
        long base;
        long stride;
        Integer rank;
        Integer processRank;
        String host;
        /** The event's {@code args.bytes} and {@code args.Bytes} ({@code [memory]}'s), kept only where they mean a copy's, a set's or an allocation's. */
        long copyBytes;
        long memoryBytes;
        /** A peer copy's {@code args.fromDevice}, {@code toDevice}, {@code fromContext}, {@code toContext}: kept for a copy only. */
        long fromDevice;
        long toDevice;
        long fromContext;
        long toContext;

        Pass(Path path, int source) {
            this.path = path;
            this.source = source;
        }

        void read(JsonParser p) throws IOException {
            TraceTopLevel.walk(p, path, TraceTopLevel.Rules.TRACE, this);
            if (stride > 0 && inputs > 1) {
                throw new TraceFormatException(path + " is a merged trace: give it alone (its slots are the ranks), or merge"
                        + " every trace into one first");
            }
            if (stride > 0) {
                merged = true;
            } else if (merged) {
                throw new TraceFormatException(path + " follows a merged trace: give the merged trace alone, or merge every"
                        + " trace into one first");
            }
            table.source(source, base, stride);
            if (stride == 0) {
                table.slot(source, rank != null ? rank : processRank, host);
            }
        }

        /** The base time, the rank and host, a merge's slots; the rest is skipped. */
        @Override
        public void block(String field, JsonToken v, JsonParser p) throws IOException {
            if (field.equals("baseTimeNanoseconds") && v == JsonToken.VALUE_NUMBER_INT) {
                base = p.getLongValue();
            } else if (field.equals("distributedInfo") && v == JsonToken.START_OBJECT) {
                rank = identity(p, false);
            } else if (field.equals("flagtrace_process") && v == JsonToken.START_OBJECT) {
                processRank = identity(p, true);
            } else if (field.equals("flagtrace_merge") && v == JsonToken.START_OBJECT) {
                mergeBlock(p);
            } else {
                p.skipChildren();
            }
        }

        /** {@code distributedInfo} or {@code flagtrace_process}: its rank (null when none or negative); the host from the latter. */
        private Integer identity(JsonParser p, boolean withHost) throws IOException {
            Integer found = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String f = p.currentName();
                JsonToken v = p.nextToken();
                if (f.equals("rank") && v == JsonToken.VALUE_NUMBER_INT && p.getNumberType() == JsonParser.NumberType.INT
                        && p.getIntValue() >= 0) {
                    found = p.getIntValue();
                } else if (withHost && f.equals("host") && v == JsonToken.VALUE_STRING) {
                    host = p.getText();
                } else {
                    p.skipChildren();
                }
            }
            return found;
        }

        private void mergeBlock(JsonParser p) throws IOException {
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken v = p.nextToken();
                if (field.equals("pid_stride") && v == JsonToken.VALUE_NUMBER_INT) {
                    stride = Math.max(1, p.getLongValue());
                } else if (field.equals("inputs") && v == JsonToken.START_ARRAY) {
                    while (p.nextToken() == JsonToken.START_OBJECT) {
                        mergeInput(p);
                    }
                } else {
                    p.skipChildren();
                }
            }
        }

        private void mergeInput(JsonParser p) throws IOException {
            // What the merge block lists is held until the table is written: bounded by what a merge writes.
            if (++mergeInputs > MAX_MERGE_INPUTS) {
                throw new TraceFormatException(path + " lists more than " + MAX_MERGE_INPUTS + " inputs in its merge block");
            }
            long slot = -1;
            Integer slotRank = null;
            String slotHost = null;
            java.util.List<long[]> slotPids = new java.util.ArrayList<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String f = p.currentName();
                JsonToken v = p.nextToken();
                if (f.equals("slot") && v == JsonToken.VALUE_NUMBER_INT) {
                    slot = p.getLongValue();
                } else if (f.equals("rank") && v == JsonToken.VALUE_NUMBER_INT && p.getNumberType() == JsonParser.NumberType.INT
                        && p.getIntValue() >= 0) {
                    slotRank = p.getIntValue();
                } else if (f.equals("host") && v == JsonToken.VALUE_STRING && p.getTextLength() <= MAX_HOST_CHARS) {
                    slotHost = p.getText();
                } else if (f.equals("pids") && v == JsonToken.START_OBJECT) {
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String original = p.currentName();
                        JsonToken pv = p.nextToken();
                        long own = number(original);
                        if (pv == JsonToken.VALUE_NUMBER_INT) {
                            if (slotPids.size() == MAX_PIDS_PER_INPUT) {
                                throw new TraceFormatException(path + " lists more than " + MAX_PIDS_PER_INPUT
                                        + " pids for one input in its merge block (a merge keeps at most that many)");
                            }
                            slotPids.add(new long[] {own, p.getLongValue()});
                        } else {
                            p.skipChildren();
                        }
                    }
                } else {
                    p.skipChildren();
                }
            }
            if (slot >= 0 && slot < Integer.MAX_VALUE) {
                table.slot((int) slot, slotRank, slotHost);
                for (long[] own : slotPids) {
                    table.pid((int) slot, own[1], own[0]);
                }
            }
        }

        /** One event: a row, unless it is metadata or has no usable time. */
        @Override
        public void event(JsonParser p) throws IOException {
            EventTable.Row r = row.reset();
            r.source = source;
            String ts = null;
            String dur = null;
            copyBytes = EventTable.NONE;
            memoryBytes = EventTable.NONE;
            fromDevice = toDevice = fromContext = toContext = EventTable.NONE;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken v = p.nextToken();
                switch (field) {
                    case "ph": r.ph = TraceTopLevel.text(p, v); break;
                    case "cat": r.cat = TraceTopLevel.text(p, v); break;
                    case "name": r.name = TraceTopLevel.text(p, v); break;
                    case "pid": r.pid = number(p, v); break;
                    case "tid": r.tid = number(p, v); break;
                    case "ts": ts = TraceTopLevel.text(p, v); break;
                    case "dur": dur = TraceTopLevel.text(p, v); break;
                    case "id": r.flowId = number(p, v); break;
                    case "args":
                        if (v == JsonToken.START_OBJECT) {
                            args(p, r);
                        } else {
                            p.skipChildren();
                        }
                        break;
                    default: p.skipChildren();
                }
            }
            if ("M".equals(r.ph)) {
                metadata++;
                return;
            }
            try {
                r.ts = Micros.toNanos(ts);
                r.dur = dur == null ? EventTable.NONE : Micros.toNanos(dur);
            } catch (RuntimeException e) { // null, non-numeric or out of range
                untimed++;
                return;
            }
            if (r.cat != null && DEVICE_BYTES.contains(r.cat)) {
                r.bytes = copyBytes;
            } else if ("[memory]".equals(r.name)) {
                r.bytes = memoryBytes;
            }
            if (r.cat != null && COPIES.contains(r.cat)) {
                r.fromDevice = fromDevice;
                r.toDevice = toDevice;
                r.fromContext = fromContext;
                r.toContext = toContext;
            }
            if (!"s".equals(r.ph) && !"f".equals(r.ph) && !"t".equals(r.ph)) {
                r.flowId = EventTable.NONE; // an id of another phase (async events) is not an arrow's
            }
            table.add(r);
            rows++;
        }

        private void args(JsonParser p, EventTable.Row r) throws IOException {
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken v = p.nextToken();
                switch (field) {
                    case "External id":
                    case "external id": r.externalId = number(p, v); break;
                    case "correlation": r.correlation = number(p, v); break;
                    case "device":
                    case "inDevice": // a peer copy's: the device that ran it
                    case "Device Id": r.device = narrow(number(p, v)); break;
                    case "stream": r.stream = number(p, v); break;
                    case "bytes": copyBytes = number(p, v); break; // an op's own arg may say bytes too: not a copy's
                    case "Bytes": memoryBytes = number(p, v); break;
                    case "Total Allocated": r.totalAllocated = number(p, v); break;
                    case "Total Reserved": r.totalReserved = number(p, v); break;
                    case "fromDevice": fromDevice = narrow(number(p, v)); break;
                    case "toDevice": toDevice = narrow(number(p, v)); break;
                    case "fromContext": fromContext = number(p, v); break;
                    case "toContext": toContext = number(p, v); break;
                    default: p.skipChildren();
                }
            }
        }
    }

    /** A device index fits an INTEGER; anything else is no device. */
    private static long narrow(long v) {
        return v == EventTable.NONE || v < Integer.MIN_VALUE || v > Integer.MAX_VALUE ? EventTable.NONE : v;
    }

    /**
     * An integer, or a string holding one (torch writes some ids as strings); {@link EventTable#NONE}
     * otherwise. One past a long (flagtrace's unsigned correlation ids) keeps its low 64 bits, as the trace walk's table does.
     */
    private static long number(JsonParser p, JsonToken v) throws IOException {
        if (v == JsonToken.VALUE_NUMBER_INT) {
            JsonParser.NumberType type = p.getNumberType();
            return type == JsonParser.NumberType.BIG_INTEGER ? p.getBigIntegerValue().longValue() : p.getLongValue();
        }
        if (v == JsonToken.VALUE_STRING) {
            return number(p.getText());
        }
        if (v == JsonToken.START_OBJECT || v == JsonToken.START_ARRAY) {
            p.skipChildren();
        }
        return EventTable.NONE;
    }

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
