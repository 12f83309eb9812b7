package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every kind of JSON value, as Jackson's parser meets it, named with its article; anything else in one phrase. */
class JsonTokenKindTest {
    @Test
    void eachValueOfAnArrayIsNamed() throws Exception {
        List<String> words = new ArrayList<>();
        try (JsonParser p = new JsonFactory().createParser("[{\"a\":1},[2],\"s\",7,-7,1.5,1e3,true,false,null]")) {
            p.nextToken();
            for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
                words.add(JsonTokenKind.words(t));
                p.skipChildren();
            }
        }
        assertEquals(List.of("an object", "an array", "a string", "a number", "a number", "a fraction", "a fraction", "a boolean",
                "a boolean", "null"), words);
        assertEquals("a value of another kind", JsonTokenKind.words(JsonToken.FIELD_NAME));
        assertEquals("a value of another kind", JsonTokenKind.words(JsonToken.END_OBJECT));
    }
}
