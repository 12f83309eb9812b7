package org.flagos.trace.encoders;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JsonLiteralTest {
    @ParameterizedTest
    @ValueSource(strings = {"0", "-0", "12", "-3.25", "8e-05", "1E+9", "2.5e3", "240.94117647058823", "true", "false", "null"})
    void jsonLiteralsPass(String text) {
        assertTrue(JsonLiteral.isLiteral(text), text);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "N/A", "01", "1.", ".5", "+1", "1e", "1e+", "-", "NaN", "Infinity", "-Infinity", "inf",
        "True", "nul", "0x10", "1 ", " 1", "1,2", "[1]", "{}", "\"x\"", "1/2", "sm80_xmma_gemm", "Pageable", "1e5x"})
    void everythingElseIsQuoted(String text) {
        assertFalse(JsonLiteral.isLiteral(text), text);
    }

    /** Hostile metadata values must still leave one valid JSON document that round-trips. */
    @ParameterizedTest
    @ValueSource(strings = {"N/A", "8e-05", "a\"b", "back\\slash", "line\nbreak", "\u0000nul", "tab\t", "}", "],\"x\":1",
        "ünïcødé ✓", "\uD83D\uDE80", "NaN", "-Infinity", "01", "1.", "true", "null", "</script>"})
    void hostileValuesGiveValidJson(String value) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            g.writeStartObject();
            g.writeFieldName("v");
            ChromeJsonSink.writeMetadataValue(g, value);
            g.writeEndObject();
        }
        JsonNode parsed = TraceJson.MAPPER.readTree(out.toByteArray());
        JsonNode v = parsed.get("v");
        if (JsonLiteral.isLiteral(value)) {
            assertEquals(TraceJson.MAPPER.readTree(value), v);
        } else {
            assertEquals(value, v.asText(), "quoted values round-trip exactly");
        }
    }
}
