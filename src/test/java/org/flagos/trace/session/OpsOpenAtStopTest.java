package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.flagos.trace.model.UnavailableTracer;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An op still open on another thread when its session stops (the teardown stress's workers, a
 * service's request threads): its end must not write into the ops file, journal or ring the close
 * has already closed (on the H100 it threw "Stream closed" out of the op's close), and it is
 * counted, not lost in silence.
 */
class OpsOpenAtStopTest {
    @TempDir
    Path dir;

    @Test
    void anOpEndingAfterTheStopIsCountedAndWritesNothing() throws Exception {
        Path out = dir.resolve("t.json");
        Path dump = dir.resolve("t.fltrbuf");
        ProfilerSession session = ProfilerSession.open(new UnavailableTracer("test"),
                SessionOptions.to(out).withDumpBuffers(dump).withJournal(dir.resolve("j")));
        CountDownLatch opened = new CountDownLatch(1);
        CountDownLatch stopped = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread worker = new Thread(() -> {
            try {
                try (OpScope outer = session.op("open across the stop")) {
                    session.op("ended inside").close();
                    opened.countDown();
                    stopped.await();
                }
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        worker.start();
        opened.await();
        session.op("main's op").close();
        session.close();
        stopped.countDown();
        worker.join();
        assertNull(failure.get(), "the op's end after the stop must not fail on the closed outputs");

        assertEquals(1, session.accounting().hostOpsOpenAtStop());
        JsonNode trace = TraceJson.MAPPER.readTree(out.toFile());
        assertEquals(1, trace.get("flagtrace").get("dropped_outside_window").get("cpu_op_open_at_stop").asLong());
        List<String> names = new java.util.ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("cpu_op".equals(e.path("cat").asText())) {
                names.add(e.get("name").asText());
            }
        }
        assertTrue(names.contains("ended inside") && names.contains("main's op"), names.toString());
        assertFalse(names.contains("open across the stop"));
        String ops = Files.readString(dir.resolve("t.ops.jsonl"));
        assertFalse(ops.contains("open across the stop"), "the ops file was committed at the stop: " + ops);
        assertTrue(session.accounting().lines().stream().anyMatch(l -> l.contains("cpu_op_open_at_stop=1")));
    }

    @Test
    void aSessionWithEveryOpClosedWritesNoSuchCount() throws Exception {
        Path out = dir.resolve("t.json");
        ProfilerSession session = ProfilerSession.open(new UnavailableTracer("test"), SessionOptions.to(out));
        session.op("a").close();
        session.close();
        assertEquals(0, session.accounting().hostOpsOpenAtStop());
        JsonNode trace = TraceJson.MAPPER.readTree(out.toFile());
        assertNull(trace.get("flagtrace").get("dropped_outside_window").get("cpu_op_open_at_stop"),
                "a trace with none keeps the bytes it had");
    }
}
