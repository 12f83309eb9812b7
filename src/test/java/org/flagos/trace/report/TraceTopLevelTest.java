package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The one walk of a trace file's top level: what it hands the visitor, in the file's order, and what
 * each reader's rules refuse, in that reader's own line.
 */
class TraceTopLevelTest {
    private static final Path PATH = Path.of("t.json");
    private static final TraceTopLevel.Rules LENIENT = new TraceTopLevel.Rules(true, false, false, "not a document", null, "no events");

    /** Records what the walk hands it: each event's name, each block's field and first token. */
    private static final class Seen implements TraceTopLevel.Visitor {
        final List<String> seen = new ArrayList<>();

        @Override
        public void event(JsonParser p) throws IOException {
            String name = "?";
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken v = p.nextToken();
                String text = TraceTopLevel.text(p, v);
                if (field.equals("name")) {
                    name = text;
                }
            }
            seen.add("event " + name);
        }

        @Override
        public void block(String field, JsonToken value, JsonParser p) throws IOException {
            seen.add("block " + field + " " + value);
            p.skipChildren();
        }
    }

    private static Seen walk(String json, TraceTopLevel.Rules rules) throws IOException {
        Seen v = new Seen();
        try (JsonParser p = parser(json)) {
            TraceTopLevel.walk(p, PATH, rules, v);
        }
        return v;
    }

    @Test
    void handsOverEventsAndBlocksInTheFilesOrder() throws IOException {
        Seen v = walk("{\"deviceProperties\":[{\"name\":\"H200\"}],\"traceEvents\":[{\"name\":\"a\",\"args\":{\"x\":[1]}},"
                + "{\"ph\":\"X\",\"name\":\"b\"}],\"baseTimeNanoseconds\":5,\"traceEvents\":7,\"flagtrace\":{\"n\":1}}",
                TraceTopLevel.Rules.TRACE);
        assertEquals(List.of("block deviceProperties START_ARRAY", "event a", "event b", "block baseTimeNanoseconds VALUE_NUMBER_INT",
                "block traceEvents VALUE_NUMBER_INT", "block flagtrace START_OBJECT"), v.seen);
    }

    @Test
    void aBareArrayIsTheEventsAlone() throws IOException {
        Seen v = new Seen();
        try (JsonParser p = parser("[{\"name\":\"a\"},{}]")) {
            assertTrue(TraceTopLevel.walk(p, PATH, TraceTopLevel.Rules.TRACE, v));
        }
        assertEquals(List.of("event a", "event ?"), v.seen);
    }

    @Test
    void eachRuleRefusesInItsReadersLine() {
        TraceTopLevel.Rules objectOnly = new TraceTopLevel.Rules(false, true, false, "not ours", "no object", "none");
        assertEquals("t.json is not a trace: it is JSON, but not an object with traceEvents", refusal("5", TraceTopLevel.Rules.TRACE));
        assertEquals("t.json not ours", refusal("[]", objectOnly));
        assertEquals("t.json is not a trace: no traceEvents array", refusal("{\"traceEvents\":{}}", TraceTopLevel.Rules.TRACE));
        assertEquals("t.json is not a trace: traceEvents holds a true where an event object belongs (line 2)",
                refusal("{\"traceEvents\":[{},\ntrue]}", TraceTopLevel.Rules.TRACE));
        assertEquals("t.json no object", refusal("{\"traceEvents\":[{},\ntrue]}", objectOnly));
        assertEquals("t.json is not a trace: more JSON follows the trace document", refusal("[] {}", TraceTopLevel.Rules.TRACE));
    }

    @Test
    void lenientRulesSkipTheEventsAndLeaveWhatFollowsUnread() throws IOException {
        Seen v = walk("{\"traceEvents\":[1, \"not an event\", {\"name\":\"a\"}],\"distributedInfo\":{\"rank\":1}} not JSON", LENIENT);
        assertEquals(List.of("block distributedInfo START_OBJECT"), v.seen);
        Seen bare = new Seen();
        try (JsonParser p = parser("[1,2] {")) {
            assertTrue(TraceTopLevel.walk(p, PATH, LENIENT, bare));
        }
        assertTrue(bare.seen.isEmpty());
    }

    private static JsonParser parser(String json) throws IOException {
        return TraceInput.parser(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)));
    }

    private static String refusal(String json, TraceTopLevel.Rules rules) {
        return assertThrows(TraceFormatException.class, () -> walk(json, rules)).getMessage();
    }
}
