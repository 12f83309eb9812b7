package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.stages.ExternalCorrelationJoin;
import org.flagos.trace.stages.OpSummaryRow;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A live session that never stops holding its ops: threads open and close more nested ops than
 * the writer may hold (its capacity, one horizon), and the ops settle as the session goes, so the
 * most held is the capacity whatever the number of ops; the summary is still exact. On a machine
 * without a GPU (no records come); tagged {@code large}: it writes a trace of about 200 MB.
 */
@Tag("large")
class LiveBoundedOpsTest {
    @TempDir
    Path dir;

    @Test
    void moreOpsThanTheWriterHoldsSettleAsTheSessionGoesAndAddUp() throws Exception {
        int threads = 2;
        int steps = 300_000;
        try (ProfilerSession session = Profiler.start(SessionOptions.to(dir.resolve("live.json")))) {
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread worker = new Thread(() -> {
                    for (int i = 0; i < steps; i++) {
                        try (OpScope step = session.op("step")) {
                            session.op("inner").close();
                        }
                    }
                }, "worker-" + t);
                workers.add(worker);
                worker.start();
            }
            for (Thread w : workers) {
                w.join();
            }
            session.close();
            long ops = 2L * threads * steps;
            System.out.printf("live session: %d ops, at most %d held%n", ops, session.accounting().opsHeldMax());
            assertEquals(ops, session.accounting().hostOps(), "every op written");
            assertTrue(session.accounting().opsHeldMax() <= ExternalCorrelationJoin.DEFAULT_HORIZON + 1,
                    session.accounting().opsHeldMax() + " held at most, of " + ops);
            assertEquals(0, session.accounting().opsSettledAtCapacity(), "no records can come: nothing settled early");
            assertEquals(0, session.accounting().opsNestedApproximately());
            OpSummaryRow step = session.summary().row("step");
            OpSummaryRow inner = session.summary().row("inner");
            assertEquals((long) threads * steps, step.count());
            assertEquals((long) threads * steps, inner.count());
            assertEquals(Math.round((step.cpuTimeTotalUs() - inner.cpuTimeTotalUs()) * 1000),
                    Math.round(step.selfCpuTimeTotalUs() * 1000), "each step less exactly its inner op");
            assertEquals(inner.cpuTimeTotalUs(), inner.selfCpuTimeTotalUs());
        }
    }
}
