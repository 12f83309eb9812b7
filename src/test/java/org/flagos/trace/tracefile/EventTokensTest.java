package org.flagos.trace.tracefile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;

/**
 * {@link EventTokens}: every event of torch's own H200 trace ({@code torch-reference/torch_trace.json}), kept by the
 * reader for a copy, is its JSON again token for token (rebuilt from the tokens, it parses to the event Jackson reads
 * from the file, numbers as written); its top-level and {@code args} fields are found by name, a field of an inner
 * object never; an event of more tokens than the first array holds keeps them all.
 */
class EventTokensTest {
    private static final JsonFactory JSON = new JsonFactory();

    static Path torchTrace() {
        try {
            return Path.of(EventTokensTest.class.getResource("/torch-reference/torch_trace.json").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The tokens as JSON text again. */
    private static String json(EventTokens t) throws Exception {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            for (int i = 0; i < t.size(); i++) {
                switch (t.token(i)) {
                    case START_OBJECT -> g.writeStartObject();
                    case END_OBJECT -> g.writeEndObject();
                    case START_ARRAY -> g.writeStartArray();
                    case END_ARRAY -> g.writeEndArray();
                    case FIELD_NAME -> g.writeFieldName(t.text(i));
                    case VALUE_STRING -> g.writeString(t.text(i));
                    case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> g.writeNumber(t.text(i));
                    case VALUE_TRUE -> g.writeBoolean(true);
                    case VALUE_FALSE -> g.writeBoolean(false);
                    case VALUE_NULL -> g.writeNull();
                    default -> throw new AssertionError(t.token(i));
                }
            }
        }
        return out.toString();
    }

    @Test
    void everyEventOfTorchsTraceIsItsTokens() throws Exception {
        Path trace = torchTrace();
        JsonNode events = TraceJson.MAPPER.readTree(trace.toFile()).get("traceEvents");
        List<String> fails = new ArrayList<>();
        int[] seen = {0, 0, 0};
        TraceReader.read(trace, "x", TraceReader.Options.COPY, e -> {
            EventTokens t = e.tokens();
            JsonNode want = events.get(seen[0]++);
            try {
                JsonNode got = TraceJson.MAPPER.readTree(json(t));
                if (!got.equals(want)) {
                    fails.add(want + " read as " + got);
                }
            } catch (Exception x) {
                throw new java.io.IOException(x);
            }
            assertEquals(JsonToken.START_OBJECT, t.token(0));
            assertEquals(JsonToken.END_OBJECT, t.token(t.size() - 1));
            assertEquals(want.path("ph").asText(null), t.topString("ph"));
            assertEquals(want.path("name").asText(null), t.topString("name"));
            for (Iterator<Map.Entry<String, JsonNode>> it = want.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> f = it.next();
                int i = t.top(f.getKey());
                assertTrue(i > 0, f.getKey());
                assertEquals(JsonToken.FIELD_NAME, t.token(i - 1));
                if (f.getValue().isNumber()) {
                    assertEquals(f.getValue().asDouble(), Double.parseDouble(t.text(i)), 0.0, f.getKey());
                    assertNull(t.topString(f.getKey()), "a number is no string");
                    seen[1]++;
                }
            }
            JsonNode args = want.get("args");
            if (args != null) {
                for (Iterator<Map.Entry<String, JsonNode>> it = args.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> f = it.next();
                    int i = t.arg(f.getKey());
                    assertTrue(i > 0, f.getKey());
                    assertEquals(f.getKey(), t.text(i - 1));
                    if (f.getValue().isTextual()) {
                        assertEquals(f.getValue().asText(), t.text(i));
                    }
                    if (!want.has(f.getKey())) {
                        assertEquals(-1, t.top(f.getKey()), "an args field is not a top-level one: " + f.getKey());
                        seen[2]++;
                    }
                }
            } else {
                assertEquals(-1, t.arg("External id"), "no args, no args field");
            }
            assertEquals(-1, t.top("no such field"));
        });
        assertEquals(events.size(), seen[0], "every event");
        assertEquals(List.of(), fails);
        assertEquals(985, seen[1], "top-level numbers checked");
        assertEquals(854, seen[2], "args fields checked not to be found at the top");
    }

    /** The tokens of {@code json} (one object), as the reader records them. */
    private static EventTokens tokens(String json) throws Exception {
        EventTokens t = new EventTokens();
        try (JsonParser p = JSON.createParser(json)) {
            for (JsonToken k; (k = p.nextToken()) != null; ) {
                t.add(k, switch (k) {
                    case FIELD_NAME -> p.currentName();
                    case VALUE_STRING, VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> p.getText();
                    default -> null;
                });
            }
        }
        return t;
    }

    @Test
    void innerObjectsFieldsAreNotTheEvents() throws Exception {
        EventTokens t = tokens("{\"args\":{\"name\":\"inner\",\"deep\":{\"ph\":\"i\",\"External id\":5},\"list\":[{\"ts\":1}],"
                + "\"External id\":7},\"ts\":1.50,\"name\":\"outer\",\"ph\":\"X\"}");
        assertEquals("outer", t.topString("name"), "the args' own name comes first in the text");
        assertEquals("X", t.topString("ph"));
        assertEquals("1.50", t.text(t.top("ts")), "a number as written");
        assertEquals(JsonToken.VALUE_NUMBER_FLOAT, t.token(t.top("ts")));
        assertEquals("7", t.text(t.arg("External id")), "args' own field, not the one inside deep");
        assertEquals("inner", t.text(t.arg("name")));
        assertEquals(-1, t.arg("ts"), "ts of an object in a list is no args field");
        assertEquals(-1, t.arg("ph"));
        assertEquals(-1, t.top("External id"));
        assertNull(t.topString("args"), "an object is no string");
        EventTokens flat = tokens("{\"args\":3,\"name\":\"n\"}");
        assertEquals(-1, flat.arg("name"), "args that is not an object has no fields");
        EventTokens empty = tokens("{}");
        assertEquals(-1, empty.top("name"));
        assertNull(empty.topString("name"));
    }

    @Test
    void anEventLongerThanTheFirstArrayKeepsEveryToken() throws Exception {
        StringBuilder json = new StringBuilder("{\"args\":{");
        for (int i = 0; i < 100; i++) {
            json.append(i == 0 ? "" : ",").append("\"a").append(i).append("\":").append(i);
        }
        json.append("},\"name\":\"last\"}");
        EventTokens t = tokens(json.toString());
        assertEquals(1 + 1 + 1 + 200 + 1 + 2 + 1, t.size());
        assertEquals("99", t.text(t.arg("a99")));
        assertEquals("0", t.text(t.arg("a0")));
        assertEquals("last", t.topString("name"), "after the growth");
        assertEquals(TraceJson.MAPPER.readTree(json.toString()), TraceJson.MAPPER.readTree(json(t)));
    }
}
