package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.flagos.trace.model.BufferTap;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.model.UnavailableTracer;
import org.flagos.trace.testing.AvailableTracer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An op opening while its session stops is wholly in the session or inert: the stop waits for an
 * open that has taken its id until the id is on the vendor's stack, and only then disarms the tracer.
 * Seen on the H200 (teardown stress): an inner op took an id, its push was refused by the stopping
 * tracer, and the work it launched in the next session carried the outer op's id while the program
 * believed it carried the inner one's.
 */
class OpOpenDuringStopTest {
    @TempDir
    Path dir;

    /** A tracer whose push waits until the test lets it go, and which logs pushes and its stop in order. */
    private static final class SlowPushTracer extends AvailableTracer {
        final List<String> log = new CopyOnWriteArrayList<>();
        final CountDownLatch pushing = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public void start(RecordSink sink, NameTable names, DecodeStats stats, BufferTap tap) {
            log.add("start");
        }

        @Override
        public void stop() {
            log.add("stop");
        }

        @Override
        public boolean pushCorrelation(ExternalId id) {
            log.add("push " + id.value());
            pushing.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            log.add("pushed " + id.value());
            return true;
        }

        @Override
        public void popCorrelation() {
            log.add("pop");
        }
    }

    @Test
    void theStopWaitsForAnOpenUntilItsIdIsPushed() throws Exception {
        SlowPushTracer tracer = new SlowPushTracer();
        ProfilerSession session = ProfilerSession.open(tracer, SessionOptions.to(dir.resolve("t.json")));
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch stopped = new CountDownLatch(1);
        Thread opener = new Thread(() -> {
            try (OpScope op = session.op("app::opening")) {
                stopped.await(); // ends after the stop: counted as open at it, written nowhere
            } catch (Throwable e) {
                failure.set(e);
            }
        }, "opener");
        opener.start();
        assertTrue(tracer.pushing.await(10, TimeUnit.SECONDS));
        Thread closer = new Thread(session::close, "closer");
        closer.start();
        // Give a stop that does not wait the time to disarm the tracer under the open's feet.
        for (int i = 0; i < 50 && !tracer.log.contains("stop"); i++) {
            Thread.sleep(10);
        }
        tracer.release.countDown();
        closer.join();
        stopped.countDown();
        opener.join();
        assertNull(failure.get());
        String pushed = tracer.log.stream().filter(s -> s.startsWith("pushed ")).findFirst().orElseThrow();
        assertTrue(tracer.log.indexOf(pushed) < tracer.log.indexOf("stop"), "the stop came in the push: " + tracer.log);
        assertEquals(1, session.accounting().hostOpsOpenAtStop());
        assertEquals("pop", tracer.log.get(tracer.log.size() - 1), "its pop still follows its push: " + tracer.log);
    }

    @Test
    void anOpOpenedAfterTheStopIsInert() throws Exception {
        ProfilerSession session = ProfilerSession.open(new UnavailableTracer("test"), SessionOptions.to(dir.resolve("u.json")));
        session.close();
        OpScope late = session.op("app::late");
        assertEquals(-1, late.externalId());
        late.close();
        assertEquals(0, session.accounting().hostOpsOpenAtStop());
    }
}
