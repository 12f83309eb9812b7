package org.flagos.trace.tracefile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link EveryTokenParser}: a skipped value's tokens pass through {@code nextToken}, and a scalar is not read past. */
class EveryTokenParserTest {
    private static final class Seen extends EveryTokenParser {
        final List<JsonToken> tokens = new ArrayList<>();

        Seen(JsonParser p) {
            super(p);
        }

        @Override
        public JsonToken nextToken() throws IOException {
            JsonToken t = delegate.nextToken();
            if (t != null) {
                tokens.add(t);
            }
            return t;
        }
    }

    @Test
    void aSkippedObjectsTokensAreEachSeenAndTheSkipEndsAtItsClose() throws IOException {
        try (Seen p = new Seen(new JsonFactory().createParser("{\"a\": {\"b\": [1, {\"c\": 2}], \"d\": \"x\"}, \"e\": 3}"))) {
            p.nextToken(); // {
            p.nextToken(); // "a"
            p.nextToken(); // { of a
            p.tokens.clear();
            assertSame(p, p.skipChildren());
            assertEquals(List.of(JsonToken.FIELD_NAME, JsonToken.START_ARRAY, JsonToken.VALUE_NUMBER_INT, JsonToken.START_OBJECT,
                    JsonToken.FIELD_NAME, JsonToken.VALUE_NUMBER_INT, JsonToken.END_OBJECT, JsonToken.END_ARRAY,
                    JsonToken.FIELD_NAME, JsonToken.VALUE_STRING, JsonToken.END_OBJECT), p.tokens);
            assertEquals(JsonToken.FIELD_NAME, p.nextToken());
            assertEquals("e", p.currentName());
        }
    }

    @Test
    void aScalarIsNotReadPast() throws IOException {
        try (Seen p = new Seen(new JsonFactory().createParser("[1, 2]"))) {
            p.nextToken();
            p.nextToken(); // 1
            p.tokens.clear();
            p.skipChildren();
            assertEquals(List.of(), p.tokens);
            assertEquals(JsonToken.VALUE_NUMBER_INT, p.nextToken());
            assertEquals(2, p.getIntValue());
        }
    }
}
