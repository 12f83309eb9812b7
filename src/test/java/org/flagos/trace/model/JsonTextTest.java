package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link JsonText}: any Java string, lone surrogates included, written as a JSON string that is valid UTF-8 and that
 * Jackson's parser reads back as the very same string; checked for every name in torch's H200 trace and for random
 * strings dense in surrogates, controls, quotes and backslashes; {@link JsonText#hasLoneSurrogate} against the JDK's
 * own UTF-8 encoder (a string round-trips through UTF-8 exactly when it has no lone surrogate); well-formed text is
 * written exactly as Jackson writes it.
 */
class JsonTextTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final JsonFactory JSON = new JsonFactory();

    private static String written(String s) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            JsonText.writeStringField(g, "name", s);
            g.writeEndObject();
        }
        return strictUtf8(out.toByteArray());
    }

    private static String strictUtf8(byte[] bytes) throws CharacterCodingException {
        return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
    }

    private static void roundTrip(String s) throws Exception {
        String doc = written(s);
        assertEquals(s, MAPPER.readTree(doc).get("name").textValue(), doc);
        byte[] body = JsonText.quotedUtf8(s);
        String quoted = "\"" + strictUtf8(body) + "\"";
        assertEquals(s, MAPPER.readValue(quoted, String.class), quoted);
        boolean wellFormed = new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8).equals(s);
        assertEquals(!wellFormed, JsonText.hasLoneSurrogate(s), s.chars().mapToObj(Integer::toHexString).toList().toString());
        if (wellFormed) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (JsonGenerator g = JSON.createGenerator(out)) {
                g.writeStartObject();
                g.writeStringField("name", s);
                g.writeEndObject();
            }
            assertEquals(out.toString(StandardCharsets.UTF_8), doc, "well-formed text as Jackson's own generator writes it");
            assertArrayEquals(com.fasterxml.jackson.core.io.JsonStringEncoder.getInstance().quoteAsUTF8(s), body);
        }
    }

    @Test
    void everyNameOfTorchsTraceRoundTrips() throws Exception {
        int names = 0;
        for (var e : MAPPER.readTree(Path.of("src/test/resources/torch-reference/torch_trace.json").toFile()).get("traceEvents")) {
            if (e.has("name")) {
                roundTrip(e.get("name").asText());
                names++;
            }
        }
        assertTrue(names > 200, "names: " + names);
    }

    @Test
    void loneSurrogatesAreEscapedAndPairsKept() throws Exception {
        assertEquals("{\"name\":\"a\\ud800b\"}", written("a\ud800b"));
        assertEquals("{\"name\":\"\\udc00\"}", written("\udc00"), "a low surrogate first");
        assertEquals("{\"name\":\"x\\ud800\"}", written("x\ud800"), "a high surrogate last");
        assertEquals("{\"name\":\"\\ud800\ud800\udc00\"}", written("\ud800\ud800\udc00"), "a lone high before a pair");
        assertEquals("{\"name\":\"\ud800\udc00\\udc00\"}", written("\ud800\udc00\udc00"), "a lone low after a pair");
        assertEquals("{\"name\":\"\\\"q\\\"\\n\\u0001\\ud800\"}", written("\"q\"\n\u0001\ud800"), "the rest escaped as Jackson does");
        assertArrayEquals("\\udfff\\ud800".getBytes(StandardCharsets.US_ASCII), JsonText.quotedUtf8("\udfff\ud800"), "a reversed pair is two lone ones");
        for (String s : new String[] {"", "plain", "\ud83d\ude00", "\ud800", "\udc00\ud800", "\u0000", "\\", "\u2028"}) {
            roundTrip(s);
        }
        assertFalse(JsonText.hasLoneSurrogate("\ud83d\ude00"));
    }

    @Test
    void randomStringsDenseInSurrogatesRoundTrip() throws Exception {
        SplittableRandom random = new SplittableRandom(30);
        char[] pool = {'a', '"', '\\', '\n', '\u0000', '\u001f', '\u00e9', '\u2028', '\ud800', '\udbff', '\udc00', '\udfff', '\ud83d', '\ude00'};
        for (int i = 0; i < 20_000; i++) {
            char[] c = new char[random.nextInt(12)];
            for (int j = 0; j < c.length; j++) {
                c[j] = random.nextInt(4) == 0 ? (char) random.nextInt(0x10000) : pool[random.nextInt(pool.length)];
            }
            roundTrip(new String(c));
        }
    }

    @Test
    void aTraceWithALoneSurrogateIsStillValidJson() throws Exception {
        Path dir = Files.createDirectories(Path.of("target", "tmp"));
        Path f = Files.createTempFile(dir, "json-text", ".json");
        try {
            Files.writeString(f, "{\"traceEvents\": [{\"name\": " + written("op\ud800").substring("{\"name\":".length(), written("op\ud800").length() - 1) + "}]}");
            assertEquals("op\ud800", MAPPER.readTree(f.toFile()).get("traceEvents").get(0).get("name").textValue());
        } finally {
            Files.delete(f);
        }
    }
}
