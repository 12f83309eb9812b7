package org.flagos.trace.stages;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.flagos.trace.model.NameTable;
import org.junit.jupiter.api.Test;

/**
 * Ops nest on their own thread only. The summary walks ops thread after thread; an op of the next
 * thread that lies, in time, inside the previous thread's last op must not become its child (it did:
 * a worker that started late had its first step subtracted from another worker's self CPU, a
 * flaky 566 µs error in ProfilerSessionTest).
 */
class OpSummaryNestingTest {
    @Test
    void anOpOfAnotherThreadInsideThisThreadsLastOpIsNotItsChild() throws Exception {
        NameTable names = new NameTable();
        int step = names.intern("step");
        int inner = names.intern("inner");
        OpSummaryFold fold = new OpSummaryFold(names);
        HostOpLedger ops = new HostOpLedger(fold, 1 << 18, 1 << 18);
        ops.op(step, 0, 1, 1_000, 10_000, -1); // thread 1: a long last step
        ops.op(inner, 1, 1, 2_000, 3_000, -1); //   its inner op
        ops.op(step, 2, 2, 4_000, 6_000, -1); // thread 2 starts late, inside thread 1's step in time
        ops.op(inner, 3, 2, 4_500, 5_000, -1);
        ops.finish(); // folds every op: the summary is complete without taking the rows
        OpSummary summary = fold.summary();
        OpSummaryRow steps = summary.row("step");
        OpSummaryRow inners = summary.row("inner");
        assertEquals((9_000 + 2_000) / 1000.0, steps.cpuTimeTotalUs(), 1e-9);
        assertEquals((9_000 - 1_000 + 2_000 - 500) / 1000.0, steps.selfCpuTimeTotalUs(), 1e-9,
                "each step loses only its own inner op");
        assertEquals(inners.cpuTimeTotalUs(), inners.selfCpuTimeTotalUs(), 1e-9);
    }
}
