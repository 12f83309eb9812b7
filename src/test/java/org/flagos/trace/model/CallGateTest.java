package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** No call is inside the gate once {@link CallGate#closeAndDrain()} returns, however many threads race it. */
class CallGateTest {
    @Test
    void aShutGateAdmitsNothing() {
        CallGate gate = new CallGate();
        assertFalse(gate.enter());
        gate.open();
        assertTrue(gate.enter());
        gate.exit();
        gate.closeAndDrain();
        assertFalse(gate.enter());
    }

    @Test
    void afterCloseAndDrainNoThreadIsInsideAndNoneGetsIn() throws Exception {
        CallGate gate = new CallGate();
        AtomicInteger inside = new AtomicInteger();
        AtomicLong violations = new AtomicLong();
        AtomicBoolean closed = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        for (int round = 0; round < 200; round++) {
            gate.open();
            closed.set(false);
            stop.set(false);
            threads.clear();
            for (int t = 0; t < 4; t++) {
                Thread thread = new Thread(() -> {
                    while (!stop.get()) {
                        if (gate.enter()) {
                            inside.incrementAndGet();
                            if (closed.get()) {
                                violations.incrementAndGet(); // entered after the drain returned
                            }
                            inside.decrementAndGet();
                            gate.exit();
                        }
                    }
                });
                threads.add(thread);
                thread.start();
            }
            Thread.onSpinWait();
            gate.closeAndDrain();
            closed.set(true);
            assertEquals(0, inside.get(), "a call still inside after the drain");
            stop.set(true);
            for (Thread thread : threads) {
                thread.join();
            }
        }
        assertEquals(0, violations.get());
    }
}
