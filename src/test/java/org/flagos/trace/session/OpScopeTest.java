package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.model.OpArgs;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link OpScope}: closing is once only (a second close, as a try-with-resources after an explicit close
 * does, neither records the op again nor disturbs the ops still open), an op keeps its name, args and
 * session-wide id, and an inert scope (no session) records nothing and closes quietly.
 */
class OpScopeTest {
    @TempDir
    Path dir;

    private static List<String> cpuOps(JsonNode trace) {
        List<String> names = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("cpu_op".equals(e.path("cat").asText())) {
                names.add(e.get("name").asText());
            }
        }
        return names;
    }

    @Test
    void aSecondCloseRecordsNothingAndLeavesTheOuterOpOpen() throws Exception {
        Path out = dir.resolve("twice.json");
        try (ProfilerSession session = Profiler.start(SessionOptions.to(out))) {
            OpScope outer = session.op("outer");
            OpScope inner = session.op("inner", OpArgs.builder().add("Input Dims", "[[2, 3]]").build());
            assertEquals("inner", inner.name());
            assertEquals(outer.externalId() + 1, inner.externalId(), "ids are the session's, one per op");
            inner.close();
            inner.close(); // closed already: not closed out of order, not recorded again
            outer.close();
            outer.close();
        }
        JsonNode trace = TraceJson.MAPPER.readTree(out.toFile());
        List<String> ops = cpuOps(trace);
        ops.sort(null);
        assertEquals(List.of("inner", "outer"), ops);
    }

    @Test
    void anInertScopeRecordsNothingAndClosesQuietly() {
        OpScope inert = OpScope.inert("late");
        assertEquals("late", inert.name());
        assertEquals(-1, inert.externalId());
        assertNull(inert.args());
        assertNull(inert.stack());
        assertEquals(Thread.currentThread().getId(), inert.thread());
        inert.close();
        inert.close();
        assertTrue(!inert.pushed() && !inert.annotation());
    }
}
