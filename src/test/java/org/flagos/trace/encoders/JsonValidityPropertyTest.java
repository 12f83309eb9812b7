package org.flagos.trace.encoders;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.ingest.HostOps;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.stages.TraceHeader;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;

/**
 * Property: whatever strings the op names and metadata values are, the trace is one valid JSON
 * document and every one of them reads back exactly (metadata literals as the same JSON value).
 * Strings are drawn, with a fixed seed, from pieces that broke JSON writers before: quotes,
 * backslashes, control characters, lone and paired surrogates, NaN, Infinity, 1e-05, N/A, numbers
 * past 2^63, and JSON syntax.
 */
class JsonValidityPropertyTest {
    private static final String[] PIECES = {
        "\"", "\\", "\u0000", "\u001f", "\n", "\t", "\ud800", "\udfff", "\ud83d\ude80", "NaN", "Infinity", "-Infinity",
        "1e-05", "8e-05", "N/A", "99999999999999999999", "-9223372036854775809", "18446744073709551616", "0", "-0",
        "true", "null", "}", "],", "{\"x\":1}", "</script>", "ünï", "aten::mm", " ", "'", "\u2028", "\ufeff",
    };

    private static String draw(Random random) {
        StringBuilder s = new StringBuilder();
        int parts = random.nextInt(4);
        for (int i = 0; i <= parts; i++) {
            s.append(PIECES[random.nextInt(PIECES.length)]);
        }
        return s.toString();
    }

    @Test
    void arbitraryNamesAndMetadataAlwaysMakeValidJsonThatReadsBack() throws Exception {
        Random random = new Random(20261201);
        for (int round = 0; round < 40; round++) {
            Map<String, String> metadata = new LinkedHashMap<>();
            for (int i = 0; i < 8; i++) {
                String key = "key" + i + draw(random);
                if (org.flagos.trace.model.JsonText.hasLoneSurrogate(key)) {
                    Map<String, String> bad = Map.of(key, "v");
                    org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                            () -> new TraceHeader("t", List.of(), null, bad, "p", 1), "a key strict parsers refuse is refused");
                    continue;
                }
                metadata.put(key, draw(random));
            }
            List<HostOp> ops = new ArrayList<>();
            Map<Long, String> names = new HashMap<>();
            long t = 1_000_000_000_000L;
            for (long id = 0; id < 30; id++) {
                String name = draw(random);
                names.put(id, name);
                ops.add(new HostOp(name, new ExternalId(id), random.nextInt(3), t, t + 1 + random.nextInt(1000), draw(random)));
                t += 2_000;
            }
            CaptureReplay.Request request = CaptureReplay.Request.of(CaptureBytes.load(Captures.capture("h200-app-tiny2k")), "tiny2k")
                    .ops(new HostOps(0, Long.MAX_VALUE, ops)).metadata(metadata).traceName(draw(random))
                    .ringSize(1 << 10).build();
            JsonNode trace = TraceJson.replay(request).trace(); // fails the test if it does not parse
            for (Map.Entry<String, String> e : metadata.entrySet()) {
                JsonNode value = trace.get(e.getKey());
                if (JsonLiteral.isLiteral(e.getValue())) {
                    assertEquals(TraceJson.MAPPER.readTree(e.getValue()), value, e.getKey());
                } else {
                    assertEquals(e.getValue(), value.asText(), "metadata " + e.getKey());
                }
            }
            int seen = 0;
            for (JsonNode e : trace.get("traceEvents")) {
                if ("cpu_op".equals(e.path("cat").asText())) {
                    assertEquals(names.get(e.get("args").get("External id").asLong()), e.get("name").asText());
                    seen++;
                }
            }
            assertEquals(30, seen);
        }
    }
}
