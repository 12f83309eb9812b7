package org.flagos.trace.model;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.util.List;

/**
 * Who captured and the clock anchors taken, as a capture carries them (the {@code .process.json}
 * beside a dump, the journal's session document) and a trace writes them: the identity as torch's
 * {@code distributedInfo} (when a rank is known) and a {@code flagtrace_process} block at the top,
 * the anchors in the {@code flagtrace} block at the end (the last is taken at stop).
 */
public record ProcessFacts(ProcessIdentity identity, List<ClockAnchor> anchors) {
    public ProcessFacts {
        anchors = List.copyOf(anchors);
    }

    /** This with {@code anchor} added. */
    public ProcessFacts with(ClockAnchor anchor) {
        List<ClockAnchor> more = new java.util.ArrayList<>(anchors);
        more.add(anchor);
        return new ProcessFacts(identity, more);
    }

    /** Writes the whole as one JSON object: the identity's fields and {@code clock_anchors}. */
    public void writeJson(JsonGenerator g) throws IOException {
        g.writeStartObject();
        writeIdentityFields(g, identity);
        writeAnchors(g, anchors);
        g.writeEndObject();
    }

    /** torch's {@code distributedInfo} (only the fields flagtrace knows) and the {@code flagtrace_process} block, as top-level fields. */
    public static void writeTopLevel(JsonGenerator g, ProcessIdentity identity) throws IOException {
        if (identity.distributed()) {
            g.writeObjectFieldStart("distributedInfo");
            g.writeNumberField("rank", identity.rank());
            if (identity.worldSize() >= 0) {
                g.writeNumberField("world_size", identity.worldSize());
            }
            g.writeEndObject();
        }
        g.writeObjectFieldStart("flagtrace_process");
        writeIdentityFields(g, identity);
        g.writeEndObject();
    }

    /** The identity's known fields. */
    public static void writeIdentityFields(JsonGenerator g, ProcessIdentity id) throws IOException {
        number(g, "rank", id.rank());
        number(g, "world_size", id.worldSize());
        number(g, "local_rank", id.localRank());
        number(g, "local_world_size", id.localWorldSize());
        if (id.host() != null) {
            JsonText.writeStringField(g, "host", id.host());
        }
        number(g, "pid", id.pid());
        if (id.bootId() != null) {
            JsonText.writeStringField(g, "boot_id", id.bootId());
        }
    }

    /** {@code "clock_anchors": [...]}, or nothing when there are none. */
    public static void writeAnchors(JsonGenerator g, List<ClockAnchor> anchors) throws IOException {
        if (anchors.isEmpty()) {
            return;
        }
        g.writeArrayFieldStart("clock_anchors");
        for (ClockAnchor a : anchors) {
            g.writeStartObject();
            JsonText.writeStringField(g, "at", a.at());
            g.writeNumberField("realtime_ns", a.realtimeNs());
            g.writeNumberField("monotonic_ns", a.monotonicNs());
            g.writeNumberField("trace_ns", a.traceNs());
            g.writeNumberField("bound_ns", a.boundNs());
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    private static void number(JsonGenerator g, String field, long value) throws IOException {
        if (value >= 0) {
            g.writeNumberField(field, value);
        }
    }
}
