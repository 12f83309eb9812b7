package org.flagos.trace.merge;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.flagos.trace.tracefile.TraceSource;
import org.junit.jupiter.api.Test;

/**
 * An event's bytes kept as read only where they are what the JSON writer writes of its tokens: for every string a
 * trace may hold (escapes of each kind, control characters, non-ASCII of two, three and four bytes, surrogates,
 * white space around tokens), either {@link EventBytes#scan} refuses the bytes or what it keeps, holes filled with
 * their values, is byte for byte the writer's output, which is what the merge wrote before it copied bytes.
 */
class EventBytesTest {
    /** The writer's bytes of the JSON {@code json}, token by token, as the merge's token copy wrote them. */
    private static byte[] written(byte[] json) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonParser p = TraceSource.JSON.createParser(json); JsonGenerator g = TraceSource.JSON.createGenerator(out, JsonEncoding.UTF8)) {
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                switch (t) {
                    case START_OBJECT -> g.writeStartObject();
                    case END_OBJECT -> g.writeEndObject();
                    case START_ARRAY -> g.writeStartArray();
                    case END_ARRAY -> g.writeEndArray();
                    case FIELD_NAME -> g.writeFieldName(p.currentName());
                    case VALUE_STRING -> g.writeString(p.getText());
                    case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> g.writeNumber(p.getText());
                    case VALUE_TRUE -> g.writeBoolean(true);
                    case VALUE_FALSE -> g.writeBoolean(false);
                    default -> g.writeNull();
                }
            }
        }
        return out.toByteArray();
    }

    /** What {@link EventBytes} kept, each hole given back the value it cut out. */
    private static byte[] refilled(EventBytes e) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int done = 0;
        for (int h = 0; h < e.holes; h++) {
            out.write(e.text, done, e.at[h] - done);
            done = e.at[h];
            boolean string = e.kinds[h] == EventBytes.ID_STRING || e.kinds[h] == EventBytes.ID_NUMBER_STRING;
            if (string) {
                out.write('"');
            }
            out.write(e.values, e.valueFrom[h], e.valueTo[h] - e.valueFrom[h]);
            if (string) {
                out.write('"');
            }
        }
        out.write(e.text, done, e.size - done);
        return out.toByteArray();
    }

    private static final List<String> STRINGS = List.of("plain", "a b", "q\\\"q", "back\\\\slash", "\\/", "\\u0041", "\\u00e9",
            "\\u001f", "\\u001F", "\\u0008", "\\b\\t\\n\\f\\r", "\\u0000", "\\u007f", "\u007f", "caf\u00e9", "\u4e2d\u6587",
            "\ud83d\ude00", "\\ud83d\\ude00", "\\ud800", "\\udfff x", "\u2028\u2029", "\ufeff", "\uffff", "\u0800", "\u07ff",
            "\\uD83D\\uDE00", "\\u2028");

    @Test
    void whatIsKeptIsWhatTheWriterWrites() throws Exception {
        Random random = new Random(32);
        EventBytes scan = new EventBytes();
        int kept = 0;
        int refused = 0;
        for (int n = 0; n < 4_000; n++) {
            String a = STRINGS.get(random.nextInt(STRINGS.size()));
            String b = STRINGS.get(random.nextInt(STRINGS.size()));
            String space = random.nextBoolean() ? "" : List.of(" ", "\n  ", "\t", "\r\n").get(random.nextInt(4));
            String json = "{" + space + "\"name\"" + space + ":" + space + "\"" + a + "\"," + "\"id\":" + (random.nextBoolean() ? "\"" + b + "\""
                    : "12") + ",\"args\":{\"k\":[\"" + b + "\"," + space + "1.50,-0,1e3,true,null]," + "\"correlation\":" + n + "}"
                    + space + "}";
            byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
            byte[] expected = written(bytes);
            if (scan.scan(bytes, 0, bytes.length, false, false, false)) {
                assertArrayEquals(expected, refilled(scan), json);
                kept++;
            } else {
                refused++;
                assertTrue(scan.scan(expected, 0, expected.length, true, false, false));
                assertArrayEquals(expected, refilled(scan), "the writer's own bytes: " + json);
            }
        }
        assertTrue(kept > 1_000 && refused > 1_000, kept + " kept, " + refused + " refused");
    }

    @Test
    void theHolesAreTheValuesAMergeRewrites() throws Exception {
        byte[] json = ("{\"ph\":\"X\",\"pid\":\"p\",\"tid\":3,\"ts\":1.5,\"id\":\"s\",\"args\":{\"External id\":4,\"correlation\":5.5,"
                + "\"o\":{\"correlation\":6},\"correlation\":7}}").getBytes(StandardCharsets.UTF_8);
        EventBytes scan = new EventBytes();
        assertTrue(scan.scan(json, 0, json.length, false, true, true));
        assertEquals(5, scan.holes, "pid, ts, id, External id and the correlation after an object; not a fraction, not an object's");
        assertEquals(List.of(EventBytes.PID, EventBytes.TS, EventBytes.ID_STRING, EventBytes.ID_INT, EventBytes.ID_INT),
                List.of(scan.kinds[0], scan.kinds[1], scan.kinds[2], scan.kinds[3], scan.kinds[4]));
        assertEquals("4", new String(scan.values, scan.valueFrom[3], scan.valueTo[3] - scan.valueFrom[3], StandardCharsets.US_ASCII));
        assertEquals("7", new String(scan.values, scan.valueFrom[4], scan.valueTo[4] - scan.valueFrom[4], StandardCharsets.US_ASCII));
        assertTrue(scan.scan(json, 0, json.length, false, false, false));
        assertEquals(3, scan.holes, "no pid, no ts: id, External id, correlation");
    }
}
