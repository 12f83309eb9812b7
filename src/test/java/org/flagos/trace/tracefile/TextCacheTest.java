package org.flagos.trace.tracefile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link TextCache}: every string and number of torch's reference trace reads as the parser's own text, a text seen
 * before in its slot comes back as the same string, and a text past {@link TextCache#MAX_CHARS} or one that takes a
 * slot from another is still the right text.
 */
class TextCacheTest {
    private static final Path TORCH = Path.of("src/test/resources/torch-reference/torch_trace.json");

    @Test
    void givesTheParsersTextAndReusesIt() throws IOException {
        TextCache cache = new TextCache();
        Map<String, String> first = new HashMap<>();
        int reused = 0;
        int texts = 0;
        try (JsonParser p = TraceSource.JSON.createParser(Files.newInputStream(TORCH))) {
            for (JsonToken t; (t = p.nextToken()) != null; ) {
                if (t == JsonToken.VALUE_STRING || t == JsonToken.VALUE_NUMBER_INT) {
                    String s = cache.text(p);
                    assertEquals(p.getText(), s);
                    texts++;
                    String seen = first.putIfAbsent(s, s);
                    reused += seen == s ? 1 : 0;
                }
            }
        }
        assertEquals(true, texts > 1000, "texts " + texts);
        assertEquals(true, reused > texts / 2, "reused " + reused + " of " + texts); // a trace repeats its texts
    }

    @Test
    void longTextsAndSlotsTakenOver() throws IOException {
        String longName = "k".repeat(TextCache.MAX_CHARS + 1);
        // "Aa" and "BB" have one hash: one slot, taken in turn
        String json = "[\"Aa\",\"BB\",\"Aa\",\"" + longName + "\",\"" + longName + "\",12345,\"12345\"]";
        TextCache cache = new TextCache();
        List<String> got = new ArrayList<>();
        try (JsonParser p = TraceSource.JSON.createParser(json)) {
            for (JsonToken t; (t = p.nextToken()) != null; ) {
                if (t.isScalarValue()) {
                    got.add(cache.text(p));
                }
            }
        }
        assertEquals(List.of("Aa", "BB", "Aa", longName, longName, "12345", "12345"), got);
        assertNotSame(got.get(3), got.get(4), "a long text is not kept");
        assertSame(got.get(5), got.get(6), "a number's text and a string's are one text");
    }
}
