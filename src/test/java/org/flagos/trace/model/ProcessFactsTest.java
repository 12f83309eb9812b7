package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link ProcessFacts}: what is not known is left out of the JSON (no -1, no null), torch's {@code distributedInfo}
 * is written only for a process with a rank and without a world size it does not know, {@code clock_anchors} only
 * when there are anchors, in the order they were taken; adding an anchor leaves the facts it was added to as they were.
 */
class ProcessFactsTest {
    private static final ClockAnchor START = new ClockAnchor("start", 1_700_000_000_000_000_000L, 5_000, 5_010, 20);
    private static final ClockAnchor STOP = new ClockAnchor("stop", 1_700_000_001_000_000_000L, 1_000_005_000, 1_000_005_012, 30);

    private interface Writing {
        void write(JsonGenerator g) throws IOException;
    }

    private static String json(Writing w) throws IOException {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            g.writeStartObject();
            w.write(g);
            g.writeEndObject();
        }
        return out.toString();
    }

    @Test
    void whatIsNotKnownIsLeftOut() throws Exception {
        ProcessIdentity bare = new ProcessIdentity(-1, -1, -1, -1, null, 4242, null);
        assertEquals("{\"pid\":4242}", json(g -> ProcessFacts.writeIdentityFields(g, bare)));
        ProcessIdentity full = new ProcessIdentity(1, 4, 1, 2, "node-7", 99, "b0a7");
        assertEquals("{\"rank\":1,\"world_size\":4,\"local_rank\":1,\"local_world_size\":2,\"host\":\"node-7\",\"pid\":99,\"boot_id\":\"b0a7\"}",
                json(g -> ProcessFacts.writeIdentityFields(g, full)));
    }

    @Test
    void distributedInfoOnlyForARankAndWithoutAnUnknownWorldSize() throws Exception {
        assertEquals("{\"flagtrace_process\":{\"world_size\":8,\"pid\":1}}",
                json(g -> ProcessFacts.writeTopLevel(g, new ProcessIdentity(-1, 8, -1, -1, null, 1, null))),
                "a world size without a rank is no rank of a job: no distributedInfo");
        assertEquals("{\"distributedInfo\":{\"rank\":3},\"flagtrace_process\":{\"rank\":3,\"pid\":1}}",
                json(g -> ProcessFacts.writeTopLevel(g, new ProcessIdentity(3, -1, -1, -1, null, 1, null))));
        assertEquals("{\"distributedInfo\":{\"rank\":0,\"world_size\":2},\"flagtrace_process\":{\"rank\":0,\"world_size\":2,\"pid\":1}}",
                json(g -> ProcessFacts.writeTopLevel(g, new ProcessIdentity(0, 2, -1, -1, null, 1, null))));
    }

    @Test
    void anchorsAreWrittenInTheOrderTakenAndOnlyWhenThereAreAny() throws Exception {
        ProcessIdentity id = new ProcessIdentity(-1, -1, -1, -1, null, 7, null);
        ProcessFacts none = new ProcessFacts(id, List.of());
        StringWriter out = new StringWriter();
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            none.writeJson(g);
        }
        assertEquals("{\"pid\":7}", out.toString());
        ProcessFacts two = none.with(START).with(STOP);
        assertEquals(List.of(), none.anchors(), "adding makes new facts");
        out = new StringWriter();
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            two.writeJson(g);
        }
        assertEquals("{\"pid\":7,\"clock_anchors\":["
                + "{\"at\":\"start\",\"realtime_ns\":1700000000000000000,\"monotonic_ns\":5000,\"trace_ns\":5010,\"bound_ns\":20},"
                + "{\"at\":\"stop\",\"realtime_ns\":1700000001000000000,\"monotonic_ns\":1000005000,\"trace_ns\":1000005012,\"bound_ns\":30}]}",
                out.toString());
    }

    @Test
    void theFactsKeepTheirOwnCopyOfTheAnchors() {
        List<ClockAnchor> anchors = new ArrayList<>(List.of(START));
        ProcessFacts facts = new ProcessFacts(new ProcessIdentity(-1, -1, -1, -1, null, 7, null), anchors);
        anchors.add(STOP);
        assertEquals(List.of(START), facts.anchors());
        assertThrows(UnsupportedOperationException.class, () -> facts.anchors().add(STOP));
    }
}
