package org.flagos.trace.tracefile;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.flagos.trace.ingest.CaptureFormatException;
import org.flagos.trace.ingest.ProcessFactsFile;
import org.flagos.trace.model.ClockAnchor;
import org.flagos.trace.model.JsonTokenKind;
import org.flagos.trace.model.ProcessIdentity;

/**
 * The blocks around a trace's events, as the reader read them under one set of rules: torch's
 * {@code baseTimeNanoseconds}, {@code deviceProperties} and {@code distributedInfo}; flagtrace's
 * {@code flagtrace} (its accounting, notes and clock anchors), {@code flagtrace_process} (who captured)
 * and {@code flagtrace_merge} (a merge's slots). A block may come before or after the events, so a
 * reader asks for these once the walk is done. Each number is bounded ({@link TraceLimits}); a block
 * that breaks the rules refuses the file.
 */
public final class TraceBlocks {
    /** One input of a merged trace's {@code flagtrace_merge} block. */
    public record MergeInput(int slot, int rank, String host, Map<String, Long> pids) {
        /** "rank R", or "slot S" for an input without a rank. */
        public String label() {
            return rank >= 0 ? "rank " + rank : "slot " + slot;
        }
    }

    private final Path path;
    private final boolean keepDevices;
    boolean bareArray;
    long baseNs;
    int distributedRank = -1;
    int distributedWorld = -1;
    ProcessIdentity process;
    List<ClockAnchor> anchors = List.of();
    boolean flagtrace;
    final Map<String, Long> accounting = new LinkedHashMap<>();
    final List<String> notes = new ArrayList<>();
    final List<String> devices = new ArrayList<>();
    final List<EventTokens> deviceTokens = new ArrayList<>();
    boolean merged;
    final TreeMap<Integer, MergeInput> mergeInputs = new TreeMap<>();
    boolean cuda;

    TraceBlocks(Path path, boolean keepDevices) {
        this.path = path;
        this.keepDevices = keepDevices;
    }

    /** Whether the trace is the bare array of events (the Chrome format's older form): it has no blocks. */
    public boolean bareArray() {
        return bareArray;
    }

    /** {@code baseTimeNanoseconds}, 0 when absent (every {@code ts} is then absolute). */
    public long baseNs() {
        return baseNs;
    }

    /** The rank: torch's {@code distributedInfo}'s where it says one, else {@code flagtrace_process}'s, else -1. */
    public int rank() {
        return distributedRank >= 0 ? distributedRank : process != null ? process.rank() : -1;
    }

    /** The host {@code flagtrace_process} names, or null. */
    public String host() {
        return process == null ? null : process.host();
    }

    /** Who captured: {@code flagtrace_process} with {@code distributedInfo}'s rank and world size over it; unknown fields -1 or null. */
    public ProcessIdentity identity() throws TraceFormatException {
        ProcessIdentity base = process != null ? process : new ProcessIdentity(-1, -1, -1, -1, null, -1, null);
        try {
            return distributedRank >= 0 ? base.withRank(distributedRank, distributedWorld >= 0 ? distributedWorld : base.worldSize()) : base;
        } catch (IllegalArgumentException e) {
            throw new TraceFormatException(path + ": " + e.getMessage());
        }
    }

    /** The clock anchors of the {@code flagtrace} block, in its order; empty when it has none. */
    public List<ClockAnchor> anchors() {
        return anchors;
    }

    /** Whether the trace has a {@code flagtrace} block: flagtrace wrote it. */
    public boolean flagtrace() {
        return flagtrace;
    }

    /** The numbers of the {@code flagtrace} block, by dotted path; empty when absent. */
    public Map<String, Long> accounting() {
        return Collections.unmodifiableMap(accounting);
    }

    /** The strings of the {@code flagtrace} block's arrays ({@code notes}). */
    public List<String> notes() {
        return Collections.unmodifiableList(notes);
    }

    /** The device names of {@code deviceProperties}, in its order. */
    public List<String> devices() {
        return Collections.unmodifiableList(devices);
    }

    /** The device objects of {@code deviceProperties} as read, when the reader was asked to keep tokens; else empty. */
    public List<EventTokens> deviceObjects() {
        return Collections.unmodifiableList(deviceTokens);
    }

    /** Whether the trace is flagtrace merge's (it has a {@code flagtrace_merge} block). */
    public boolean merged() {
        return merged;
    }

    /** A merged trace's inputs by slot; empty for any other trace. */
    public Map<Integer, MergeInput> mergeInputs() {
        return Collections.unmodifiableMap(mergeInputs);
    }

    /**
     * The merge slot of a merged trace's pid: {@code (slot + 1) * }{@link TraceLimits#PID_STRIDE}{@code + n}; -1
     * for a pid of no slot (none, below the first slot's, or beyond the slots a merge may have).
     */
    public static int slotOf(long pid) {
        if (pid == TraceEvent.NONE || pid < TraceLimits.PID_STRIDE) {
            return -1;
        }
        long slot = pid / TraceLimits.PID_STRIDE - 1;
        return slot >= TraceLimits.MAX_MERGE_INPUTS ? -1 : (int) slot;
    }

    /** Whether any top-level field names CUDA ({@code cuda_...}): torch then calls device columns "CUDA". */
    public boolean cuda() {
        return cuda;
    }

    /** Reads the top-level block {@code field}, the parser on its value's first token. */
    void read(String field, JsonToken value, JsonParser p) throws IOException {
        switch (field) {
            case "traceEvents" -> throw new TraceFormatException(path + " is not a trace: its traceEvents is not an array");
            case "baseTimeNanoseconds" -> baseNs = time(p, value, "baseTimeNanoseconds");
            case "distributedInfo" -> distributedInfo(p, value);
            case "flagtrace_process" -> {
                try {
                    process = ProcessFactsFile.readIdentity(p, path.toString());
                } catch (CaptureFormatException e) {
                    throw new TraceFormatException(e.getMessage());
                }
            }
            case "flagtrace" -> flagtrace(p, value);
            case "deviceProperties" -> devices(p, value);
            case "flagtrace_merge" -> merge(p, value);
            default -> {
                cuda |= field.startsWith("cuda_");
                p.skipChildren();
            }
        }
    }

    private long time(JsonParser p, JsonToken value, String what) throws IOException {
        if (value != JsonToken.VALUE_NUMBER_INT) {
            p.skipChildren();
            throw new TraceFormatException(path + " is not a trace: " + what + " is not an integer");
        }
        return bounded(p, what, TraceLimits.MAX_TIME_NS, true);
    }

    /** The integer the parser is at, refused past {@code max} (or below {@code -max} when {@code signed}, else below 0). */
    private long bounded(JsonParser p, String what, long max, boolean signed) throws IOException {
        long v;
        if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
            v = Long.MAX_VALUE;
        } else {
            v = p.getLongValue();
        }
        if (v > max || v < (signed ? -max : 0)) {
            throw new TraceFormatException(path + " is not a trace: " + what + " is " + p.getText() + ", beyond "
                    + (signed ? "±" : "0 to ") + max);
        }
        return v;
    }

    private void distributedInfo(JsonParser p, JsonToken value) throws IOException {
        if (value != JsonToken.START_OBJECT) {
            p.skipChildren();
            return;
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String key = p.currentName();
            JsonToken v = p.nextToken();
            if (key.equals("rank") || key.equals("world_size")) {
                int n = rank(p, v, "distributedInfo." + key);
                if (key.equals("rank")) {
                    distributedRank = n;
                } else {
                    distributedWorld = n;
                }
            } else {
                p.skipChildren();
            }
        }
    }

    /** A rank or world size: a whole number from 0 to {@link TraceLimits#MAX_RANK}, else the file is refused. */
    private int rank(JsonParser p, JsonToken v, String what) throws IOException {
        if (v != JsonToken.VALUE_NUMBER_INT) {
            p.skipChildren();
            throw new TraceFormatException(path + ": " + what + " must be a whole number from 0 to " + TraceLimits.MAX_RANK
                    + ", not " + JsonTokenKind.words(v));
        }
        boolean big = p.getNumberType() == JsonParser.NumberType.BIG_INTEGER;
        long n = big ? Long.MAX_VALUE : p.getLongValue();
        if (n < 0 || n > TraceLimits.MAX_RANK) {
            throw new TraceFormatException(path + ": " + what + " must be a whole number from 0 to " + TraceLimits.MAX_RANK
                    + ", not " + p.getText());
        }
        return (int) n;
    }

    private void flagtrace(JsonParser p, JsonToken value) throws IOException {
        if (value != JsonToken.START_OBJECT) {
            p.skipChildren();
            throw new TraceFormatException(path + " is not a trace: its flagtrace block is not an object");
        }
        flagtrace = true;
        counters(p, "");
    }

    /** The accounting numbers by dotted path, the strings of arrays as notes, {@code clock_anchors} as anchors. */
    private void counters(JsonParser p, String prefix) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String key = prefix + p.currentName();
            JsonToken v = p.nextToken();
            if (key.equals("clock_anchors") && v == JsonToken.START_ARRAY) {
                anchors = anchors(p);
            } else if (v == JsonToken.START_OBJECT) {
                counters(p, key + ".");
            } else if (v == JsonToken.START_ARRAY) {
                JsonToken t;
                while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                    if (t == JsonToken.VALUE_STRING && notes.size() < TraceLimits.MAX_NOTES) {
                        notes.add(p.getText());
                    } else {
                        p.skipChildren();
                    }
                }
            } else if (v == JsonToken.VALUE_NUMBER_INT && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER
                    && accounting.size() < TraceLimits.MAX_COUNTERS) {
                accounting.put(key, p.getLongValue()); // a count beyond a long is no count: left out
            }
        }
    }

    private List<ClockAnchor> anchors(JsonParser p) throws IOException {
        List<ClockAnchor> read;
        try {
            read = ProcessFactsFile.readAnchors(p, path.toString());
        } catch (CaptureFormatException e) {
            throw new TraceFormatException(e.getMessage());
        }
        for (ClockAnchor a : read) {
            for (long v : new long[] {a.realtimeNs(), a.monotonicNs(), a.traceNs()}) {
                if (v > TraceLimits.MAX_TIME_NS || v < -TraceLimits.MAX_TIME_NS) {
                    throw new TraceFormatException(path + " is not a trace: its clock anchor '" + a.at() + "' reads " + v
                            + " ns, beyond ±" + TraceLimits.MAX_TIME_NS + " ns");
                }
            }
            if (a.boundNs() > TraceLimits.MAX_CLOCK_BOUND_NS) {
                throw new TraceFormatException(path + " is not a trace: its clock anchor '" + a.at() + "' is bound to "
                        + a.boundNs() + " ns, more than an hour");
            }
        }
        return read;
    }

    private void devices(JsonParser p, JsonToken value) throws IOException {
        if (value != JsonToken.START_ARRAY) {
            p.skipChildren();
            return;
        }
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            if (t != JsonToken.START_OBJECT) {
                p.skipChildren();
                throw new TraceFormatException(path + " is not a trace: its deviceProperties holds " + JsonTokenKind.words(t)
                        + " where a device object belongs");
            }
            if (devices.size() == TraceLimits.MAX_DEVICES) {
                throw new TraceFormatException(path + " lists more than " + TraceLimits.MAX_DEVICES + " devices in deviceProperties");
            }
            EventTokens kept = keepDevices ? new EventTokens() : null;
            String name = null;
            if (kept != null) {
                kept.add(JsonToken.START_OBJECT, null);
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken v = p.nextToken();
                if (kept != null) {
                    kept.add(JsonToken.FIELD_NAME, field);
                    copyValue(p, v, kept);
                    if (field.equals("name") && v == JsonToken.VALUE_STRING) {
                        name = kept.text(kept.size() - 1);
                    }
                } else if (field.equals("name") && v == JsonToken.VALUE_STRING) {
                    name = p.getText();
                } else {
                    p.skipChildren();
                }
            }
            if (kept != null) {
                kept.add(JsonToken.END_OBJECT, null);
                deviceTokens.add(kept);
            }
            devices.add(name == null ? "device " + devices.size() : name);
        }
    }

    /** The value the parser is at, whole, into {@code into}. */
    private static void copyValue(JsonParser p, JsonToken v, EventTokens into) throws IOException {
        int depth = 0;
        JsonToken t = v;
        while (true) {
            into.add(t, switch (t) {
                case FIELD_NAME -> p.currentName();
                case VALUE_STRING, VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> p.getText();
                default -> null;
            });
            if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                depth++;
            } else if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
                depth--;
            }
            if (depth == 0) {
                return;
            }
            t = p.nextToken();
        }
    }

    private void merge(JsonParser p, JsonToken value) throws IOException {
        if (value != JsonToken.START_OBJECT) {
            p.skipChildren();
            throw new TraceFormatException(path + " is not a merged trace: its flagtrace_merge block is not an object");
        }
        merged = true;
        long stride = -1;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken v = p.nextToken();
            if (field.equals("pid_stride")) {
                stride = v == JsonToken.VALUE_NUMBER_INT && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER ? p.getLongValue() : -1;
                if (stride != TraceLimits.PID_STRIDE) {
                    throw new TraceFormatException(path + " numbers its ranks' pids " + (v.isScalarValue() ? p.getText() : "?")
                            + " apart; this version reads " + TraceLimits.PID_STRIDE + " (flagtrace merge's)");
                }
            } else if (field.equals("inputs") && v == JsonToken.START_ARRAY) {
                JsonToken t;
                while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                    if (t != JsonToken.START_OBJECT) {
                        p.skipChildren();
                        throw new TraceFormatException(path + " is not a merged trace: its flagtrace_merge inputs hold "
                                + JsonTokenKind.words(t) + " where an input object belongs");
                    }
                    mergeInput(p);
                }
            } else {
                p.skipChildren();
            }
        }
        if (stride < 0) {
            throw new TraceFormatException(path + " is not a merged trace: its flagtrace_merge block has no pid_stride");
        }
    }

    private void mergeInput(JsonParser p) throws IOException {
        if (mergeInputs.size() == TraceLimits.MAX_MERGE_INPUTS) {
            throw new TraceFormatException(path + " lists more than " + TraceLimits.MAX_MERGE_INPUTS + " inputs in its merge block");
        }
        long slot = -1;
        int rank = -1;
        String host = null;
        Map<String, Long> pids = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String f = p.currentName();
            JsonToken v = p.nextToken();
            if (f.equals("slot")) {
                slot = rank(p, v, "flagtrace_merge.inputs.slot");
                if (slot >= TraceLimits.MAX_MERGE_INPUTS) {
                    throw new TraceFormatException(path + ": flagtrace_merge.inputs.slot must be below " + TraceLimits.MAX_MERGE_INPUTS
                            + ", not " + slot);
                }
            } else if (f.equals("rank") && v != JsonToken.VALUE_NULL) {
                rank = rank(p, v, "flagtrace_merge.inputs.rank");
            } else if (f.equals("host") && v == JsonToken.VALUE_STRING) {
                host = p.getTextLength() <= TraceLimits.MAX_HOST_CHARS ? p.getText() : null;
            } else if (f.equals("pids") && v == JsonToken.START_OBJECT) {
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String original = p.currentName();
                    JsonToken pv = p.nextToken();
                    if (pids.size() == TraceLimits.MAX_PIDS_PER_INPUT) {
                        throw new TraceFormatException(path + " lists more than " + TraceLimits.MAX_PIDS_PER_INPUT
                                + " pids for one input in its merge block (a merge keeps at most that many)");
                    }
                    if (pv != JsonToken.VALUE_NUMBER_INT || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                        p.skipChildren();
                        throw new TraceFormatException(path + " is not a merged trace: its merge block gives pid " + original
                                + " no merged pid");
                    }
                    pids.put(original, p.getLongValue());
                }
            } else {
                p.skipChildren();
            }
        }
        if (slot < 0) {
            throw new TraceFormatException(path + " is not a merged trace: an input of its merge block has no slot");
        }
        for (Map.Entry<String, Long> e : pids.entrySet()) {
            if (slotOf(e.getValue()) != slot) { // a pid of another slot's range would put events under a rank they are not of
                throw new TraceFormatException(path + " is not a merged trace: its merge block gives slot " + slot + "'s pid "
                        + e.getKey() + " the pid " + e.getValue() + ", which is not in that slot's " + TraceLimits.PID_STRIDE + " pids");
            }
        }
        if (mergeInputs.putIfAbsent((int) slot, new MergeInput((int) slot, rank, host, Collections.unmodifiableMap(pids))) != null) {
            throw new TraceFormatException(path + " is not a merged trace: its merge block lists slot " + slot + " twice");
        }
    }
}
