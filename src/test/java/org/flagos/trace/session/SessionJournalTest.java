package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.capture.JournalReplay;
import org.flagos.trace.journal.JournalWindow;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A live session journals as it goes; the journal exports the session's own trace events. */
class SessionJournalTest {
    @TempDir
    Path tmp;

    @Test
    void aSessionsJournalExportsItsOps() throws Exception {
        Path trace = tmp.resolve("trace.json");
        Path journal = tmp.resolve("journal");
        try (ProfilerSession session = Profiler.start(SessionOptions.to(trace).withJournal(journal))) {
            for (int i = 0; i < 50; i++) {
                try (OpScope outer = session.op("outer-" + i)) {
                    try (OpScope inner = session.op("inner-" + i)) {
                        assertTrue(inner.externalId() >= 0);
                    }
                }
            }
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        JournalReplay.Result result = JournalReplay.run(JournalReplay.Request.of(journal, JournalWindow.ALL), out);

        assertTrue(result.facts().stopped());
        assertEquals(100, result.facts().ops());
        List<String> live = cpuOps(TraceJson.MAPPER.readTree(Captures.open(trace)));
        List<String> replayed = cpuOps(TraceJson.MAPPER.readTree(out.toByteArray()));
        assertEquals(100, live.size());
        assertEquals(live, replayed);
        assertTrue(Files.isDirectory(journal));
    }

    private static List<String> cpuOps(JsonNode trace) {
        List<String> ops = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("cpu_op".equals(e.path("cat").asText())) {
                ops.add(e.path("name").asText() + "@" + e.path("ts").asText() + "+" + e.path("dur").asText());
            }
        }
        ops.sort(null);
        return ops;
    }
}
