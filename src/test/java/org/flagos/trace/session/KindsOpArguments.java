package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * The torch-style arguments the kinds workload's ops carry in a live capture, as {@link
 * LiveKindsCaptureTest} and {@link LiveStepsCaptureTest} check them.
 */
final class KindsOpArguments {
    private KindsOpArguments() {
    }

    /**
     * Asserts the arguments of the last {@code kinds::fill} and {@code kinds::malloc} among
     * {@code cpuOps}: the fill's input dims and types, the malloc's sizes.
     */
    static void assertFillAndMalloc(List<JsonNode> cpuOps) {
        JsonNode fill = null;
        JsonNode malloc = null;
        for (JsonNode e : cpuOps) {
            if (e.get("name").asText().equals("kinds::fill")) {
                fill = e.get("args");
            } else if (e.get("name").asText().equals("kinds::malloc")) {
                malloc = e.get("args");
            }
        }
        assertNotNull(fill);
        assertEquals("[[1048576],[]]", fill.get("Input Dims").toString());
        assertEquals("[\"float\",\"Scalar\"]", fill.get("Input type").toString());
        assertNotNull(malloc);
        assertEquals("[1024,65536,1048576,16777216,100663296]", malloc.get("sizes").toString());
    }
}
