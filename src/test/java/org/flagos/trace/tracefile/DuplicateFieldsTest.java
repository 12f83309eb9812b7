package org.flagos.trace.tracefile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/**
 * {@link DuplicateFields}: the trace reader's own duplicate-field rule refuses exactly what Jackson's strict detection
 * ({@link TraceSource#JSON}) refuses, with the same message and the same line and column, UTF-8 bytes and characters
 * alike, in small objects and past {@link DuplicateFields#LINEAR} fields, in skipped values too; and passes every
 * token of a real trace unchanged.
 */
class DuplicateFieldsTest {
    private static final Path TORCH = Path.of("src/test/resources/torch-reference/torch_trace.json");
    private static final Path MERGED = Path.of("src/test/resources/captures/h200-ranks/h200-ranks.merged.json.gz");

    /** A document whose object at the end has {@code n} fields f0..f(n-1) and then {@code f(dup)} again. */
    private static String wide(int n, int dup) {
        StringBuilder b = new StringBuilder("{\"a\":[1,{\"x\":1}],\"o\":{");
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : ",").append("\"f").append(i).append("\":").append(i);
        }
        return b.append(",\"f").append(dup).append("\":0}}").toString();
    }

    private static final List<String> DUPLICATED = List.of(
            "{\"ph\":\"X\",\"ph\":\"B\"}",
            "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"k\",\"name\":\"a\",\"name\":\"b\"}]}",
            "{\"traceEvents\":[{\"args\":{\"deep\":{\"x\":[{\"y\":1,\"z\":2,\"y\":3}]}}}]}",
            "{\"traceEvents\":[],\n  \"é\": 1, \"zz\": 2,\n \"é\" :2}",
            "{\"traceEvents\":[], \"traceEvents\":[]}",
            "{\"a\\u0062\":1,\"ab\":2}",
            wide(3, 1), wide(31, 30), wide(32, 0), wide(33, 32), wide(100, 77));

    /** The first failure of a full read of {@code json} by {@code p}, or null. */
    private static JsonParseException failure(JsonParser p) throws IOException {
        try (p) {
            while (p.nextToken() != null) {
                if (p.currentToken() == JsonToken.START_ARRAY && p.getParsingContext().getParent() != null
                        && "deep".equals(p.getParsingContext().getParent().getCurrentName())) {
                    p.skipChildren(); // a skipped value is checked too
                }
            }
            return null;
        } catch (JsonParseException e) {
            return e;
        }
    }

    @Test
    void refusesWhatJacksonRefusesAtItsPlace() throws IOException {
        for (String json : DUPLICATED) {
            byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
            JsonParseException strict = failure(TraceSource.JSON.createParser(bytes));
            JsonParseException own = failure(new DuplicateFields(TraceSource.WALK.createParser(new ByteArrayInputStream(bytes))));
            assertEquals(strict.getOriginalMessage(), own.getOriginalMessage(), json);
            assertEquals(strict.getLocation().getLineNr(), own.getLocation().getLineNr(), json);
            if (!json.contains("\\u")) { // an escaped name is placed by its unescaped length (the class's javadoc)
                assertEquals(strict.getLocation().getColumnNr(), own.getLocation().getColumnNr(), json);
            }
            JsonParseException chars = failure(new DuplicateFields(TraceSource.WALK.createParser(new StringReader(json))));
            JsonParseException strictChars = failure(TraceSource.JSON.createParser(new StringReader(json)));
            assertEquals(strictChars.getOriginalMessage(), chars.getOriginalMessage(), json);
            if (!json.contains("\\u")) {
                assertEquals(strictChars.getLocation().getColumnNr(), chars.getLocation().getColumnNr(), json);
            }
        }
    }

    @Test
    void sameNamesInOtherObjectsAreNoDuplicates() throws IOException {
        String json = "{\"a\":{\"a\":{\"a\":1},\"b\":[{\"a\":1,\"b\":2},{\"a\":1,\"b\":2}]},\"b\":" + wide(40, 0).replace(",\"f0\":0}}", "}}")
                + ",\"c\":{\"f1\":1}}";
        assertNull(failure(TraceSource.JSON.createParser(json)), "Jackson takes it");
        assertNull(failure(new DuplicateFields(TraceSource.WALK.createParser(json))));
    }

    @Test
    void realTracesGiveTheSameTokens() throws IOException {
        for (Path trace : List.of(TORCH, MERGED)) {
            assertEquals(tokens(TraceSource.JSON.createParser(open(trace))),
                    tokens(new DuplicateFields(TraceSource.WALK.createParser(open(trace)))), trace.toString());
        }
    }

    private static InputStream open(Path p) throws IOException {
        InputStream in = Files.newInputStream(p);
        return p.toString().endsWith(".gz") ? new GZIPInputStream(in) : in;
    }

    private static List<String> tokens(JsonParser p) throws IOException {
        List<String> out = new ArrayList<>();
        try (p) {
            for (JsonToken t; (t = p.nextToken()) != null; ) {
                out.add(t + (t.isScalarValue() ? p.getText() : t == JsonToken.FIELD_NAME ? p.currentName() : ""));
            }
        }
        return out;
    }

    @Test
    void aCutDocumentFailsAsJacksonSaysIt() throws IOException {
        String cut = "{\"a\":[{\"b\":1";
        assertEquals(failure(TraceSource.JSON.createParser(cut)).getOriginalMessage(),
                failure(new DuplicateFields(TraceSource.WALK.createParser(cut))).getOriginalMessage());
    }
}
