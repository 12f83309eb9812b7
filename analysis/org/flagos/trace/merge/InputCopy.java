package org.flagos.trace.merge;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.flagos.trace.tracefile.EventTokens;
import org.flagos.trace.tracefile.TraceEvent;
import org.flagos.trace.tracefile.TraceFormatException;
import org.flagos.trace.tracefile.TraceLimits;
import org.flagos.trace.tracefile.TraceReader;

/**
 * Copies one trace's events into the merged trace, streamed one event at a time: its processes get
 * pids of their own ({@link #PID_STRIDE} per input), its ids ({@code id} of flows and async events,
 * {@code args.correlation}, {@code args["External id"]}) become {@code id * inputs + slot}, unique
 * across inputs yet still pairing within one, and its times move onto the reference clock. Its
 * own process names and sort indexes are replaced by ones naming the rank, host and pid, written
 * after its events.
 */
final class InputCopy {
    /** Pids given to one input's processes: its host process and up to 998 devices. */
    static final int PID_STRIDE = TraceLimits.PID_STRIDE;
    /** Ids a viewer reads as JavaScript numbers stay exact up to 2^53. */
    static final long MAX_ID = 1L << 53;
    /** Categories of device work: their process is a device's. */
    private static final Set<String> DEVICE_CATEGORIES = Set.of("kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation");

    /** One process of the input: its new pid and what its labels said. */
    static final class Row {
        final String original;
        final long pid;
        final int order;
        String name;
        boolean device;

        Row(String original, long pid, int order) {
            this.original = original;
            this.pid = pid;
            this.order = order;
        }
    }

    private final TraceFacts facts;
    private final int slot;
    private final int inputs;
    private final long shiftNs;
    private final String label;
    private final Map<String, Row> rows = new LinkedHashMap<>();
    long events;
    long labelsReplaced;
    /** Events whose ts or dur is no time (not a number, a negative duration): left out, counted. */
    long leftOutUnusable;

    /**
     * @param slot    this input's place in the merged trace (0 for the reference)
     * @param inputs  how many traces are merged (the id stride)
     * @param shiftNs added to each event's time: its base, its clock offset, less the merged base
     * @param label   how its processes are named: {@code rank 3}, or {@code input 2} without a rank
     */
    InputCopy(TraceFacts facts, int slot, int inputs, long shiftNs, String label) {
        this.facts = facts;
        this.slot = slot;
        this.inputs = inputs;
        this.shiftNs = shiftNs;
        this.label = label;
    }

    Map<String, Row> rows() {
        return rows;
    }

    /** Copies every event, then writes the input's process labels. */
    void copy(JsonGenerator g) throws IOException {
        TraceReader.read(facts.path(), TraceFacts.DIRECTORY, TraceReader.Options.COPY, e -> write(g, e));
        writeLabels(g);
    }

    private void write(JsonGenerator g, TraceEvent e) throws IOException {
        if (e.unusable()) { // a ts or dur that is no time: left out, as every reader of the merged trace would
            leftOutUnusable++;
            return;
        }
        EventTokens event = e.tokens();
        Row row = e.pid() == null ? null : row(e.pid());
        String ph = e.ph();
        String name = e.name();
        if (row != null && "M".equals(ph) && ("process_name".equals(name) || "process_sort_index".equals(name))) {
            int at = event.arg("name");
            if ("process_name".equals(name) && at >= 0 && event.token(at) == JsonToken.VALUE_STRING) {
                row.name = event.text(at);
            }
            labelsReplaced++;
            return;
        }
        String category = e.cat();
        if (row != null && category != null && DEVICE_CATEGORIES.contains(category)) {
            row.device = true;
        }
        String shifted = null;
        if (e.tsNs() != TraceEvent.NONE) {
            long at;
            try {
                at = Math.addExact(e.tsNs(), shiftNs);
            } catch (ArithmeticException overflow) {
                at = Long.MAX_VALUE;
            }
            if (at > TraceLimits.MAX_TIME_NS || at < -TraceLimits.MAX_TIME_NS) {
                throw new TraceFormatException(facts.path() + ": its event on line " + e.line() + " falls beyond ±" + TraceLimits.MAX_TIME_NS
                        + " ns once on the reference's clock (its base time or clock anchors are not a clock's)");
            }
            shifted = Timestamps.shift(event.text(event.top("ts")), shiftNs);
        }
        int depth = 0;
        String top = null;
        String arg = null;
        boolean inArgs = false;
        for (int i = 0; i < event.size(); i++) {
            JsonToken t = event.token(i);
            String text = event.text(i);
            switch (t) {
                case START_OBJECT -> {
                    depth++;
                    inArgs = depth == 2 && "args".equals(top) && event.token(i - 1) == JsonToken.FIELD_NAME;
                    g.writeStartObject();
                }
                case END_OBJECT -> {
                    depth--;
                    if (depth < 2) {
                        inArgs = false;
                    }
                    g.writeEndObject();
                }
                case START_ARRAY -> {
                    depth++;
                    g.writeStartArray();
                }
                case END_ARRAY -> {
                    depth--;
                    g.writeEndArray();
                }
                case FIELD_NAME -> {
                    if (depth == 1) {
                        top = text;
                    } else if (depth == 2 && inArgs) {
                        arg = text;
                    }
                    g.writeFieldName(text);
                }
                default -> {
                    if (depth == 1 && row != null && top.equals("pid")) {
                        g.writeNumber(row.pid);
                    } else if (depth == 1 && top.equals("ts") && shifted != null) {
                        g.writeNumber(shifted);
                    } else if (depth == 1 && top.equals("id")) {
                        writeId(g, t, text);
                    } else if (depth == 2 && inArgs && t == JsonToken.VALUE_NUMBER_INT
                            && (arg.equals("correlation") || arg.equals("External id"))) {
                        writeId(g, t, text);
                    } else {
                        copyScalar(g, t, text);
                    }
                }
            }
        }
        events++;
    }

    private Row row(String text) throws TraceFormatException {
        Row row = rows.get(text);
        if (row == null) {
            if (rows.size() == PID_STRIDE - 1) {
                throw new TraceFormatException(facts.path() + " has more than " + (PID_STRIDE - 1) + " processes (pids); a merge keeps"
                        + " each trace's processes within " + PID_STRIDE + " pids");
            }
            row = new Row(text, (long) (slot + 1) * PID_STRIDE + rows.size(), rows.size());
            rows.put(text, row);
        }
        return row;
    }

    private void writeId(JsonGenerator g, JsonToken t, String text) throws IOException {
        if (t == JsonToken.VALUE_STRING) {
            g.writeString(slot + ":" + text);
            return;
        }
        if (t != JsonToken.VALUE_NUMBER_INT) {
            copyScalar(g, t, text);
            return;
        }
        long id;
        try {
            id = Math.addExact(Math.multiplyExact(Long.parseLong(text), (long) inputs), slot);
        } catch (NumberFormatException | ArithmeticException e) {
            id = Long.MAX_VALUE;
        }
        if (Math.abs(id) > MAX_ID) {
            throw new TraceFormatException(facts.path() + " has the id " + text + ": ids times " + inputs + " traces pass 2^53,"
                    + " past which a viewer cannot keep them apart; merge fewer traces at once");
        }
        g.writeNumber(id);
    }

    private static void copyScalar(JsonGenerator g, JsonToken t, String text) throws IOException {
        switch (t) {
            case VALUE_STRING -> g.writeString(text);
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> g.writeNumber(text);
            case VALUE_TRUE -> g.writeBoolean(true);
            case VALUE_FALSE -> g.writeBoolean(false);
            default -> g.writeNull();
        }
    }

    /** A process name and sort index per process: ranks in order, each host before its devices. */
    private void writeLabels(JsonGenerator g) throws IOException {
        String host = facts.identity().host();
        for (Row row : rows.values()) {
            String name;
            if (row.device) {
                name = label + " · device " + row.original;
            } else {
                name = label + (host != null ? " · " + host : "") + " · pid " + row.original
                        + (row.name != null && !row.name.isEmpty() ? " · " + row.name : "");
            }
            metadata(g, "process_name", row.pid, "name", name);
            g.writeStartObject();
            g.writeStringField("name", "process_sort_index");
            g.writeStringField("ph", "M");
            g.writeNumberField("ts", 0);
            g.writeNumberField("pid", row.pid);
            g.writeNumberField("tid", 0);
            g.writeObjectFieldStart("args");
            g.writeNumberField("sort_index", (long) (slot + 1) * PID_STRIDE + (row.device ? 1 + row.order : 0));
            g.writeEndObject();
            g.writeEndObject();
        }
    }

    private static void metadata(JsonGenerator g, String what, long pid, String key, String value) throws IOException {
        g.writeStartObject();
        g.writeStringField("name", what);
        g.writeStringField("ph", "M");
        g.writeNumberField("ts", 0);
        g.writeNumberField("pid", pid);
        g.writeNumberField("tid", 0);
        g.writeObjectFieldStart("args");
        g.writeStringField(key, value);
        g.writeEndObject();
        g.writeEndObject();
    }
}
