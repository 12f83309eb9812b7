package org.flagos.trace.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * OpNesting by hand: children whose spans overlap (their union counted once in the parent's self time), a
 * zero-length event at its predecessor's end (none's child) and one at the start of a longer event (its child),
 * an event that crosses its predecessor's end (closing it: a later event inside both is the crosser's child, not the
 * crossed one's), device time summed up the chain, another thread of the same times (no nesting across threads)
 * and a thread of no rank. Rows come out as events close, innermost first.
 */
class OpNestingTest {
    private static OpNesting.Host h(Integer rank, long tid, long ts, long end, String name, long device) {
        return new OpNesting.Host(rank, 1L, tid, ts, end, name, device);
    }

    @Test
    void nestsEachThreadAsTorchsStackAndMeasuresByTheSummaryRule() {
        List<OpNesting.Host> in = List.of(
                h(0, 1, 0, 100, "p", 5), h(0, 1, 10, 40, "c", 3), h(0, 1, 30, 60, "c", 0),
                h(0, 1, 100, 150, "q", 0), h(0, 1, 100, 100, "z", 0), // in OpNesting.ORDER: the longer first
                h(0, 2, 120, 130, "r", 0),
                h(1, 1, 0, 100, "P", 0), h(1, 1, 50, 150, "X", 7), h(1, 1, 60, 70, "Y", 2),
                h(null, 1, 0, 10, "n", 1));
        List<OpNesting.Op> got = new ArrayList<>();
        new OpNesting(in.iterator()).forEachRemaining(got::add);
        assertEquals(List.of(
                new OpNesting.Op(0, "c", 30, 3, 3, 30),
                new OpNesting.Op(0, "c", 30, 0, 0, 30),
                new OpNesting.Op(0, "p", 100, 5, 8, 50), // children [10, 60] once
                new OpNesting.Op(0, "z", 0, 0, 0, 0),
                new OpNesting.Op(0, "q", 50, 0, 0, 50), // z is its child, of no time
                new OpNesting.Op(0, "r", 10, 0, 0, 10),
                new OpNesting.Op(1, "P", 100, 0, 0, 100), // closed by X: Y is not its child
                new OpNesting.Op(1, "Y", 10, 2, 2, 10),
                new OpNesting.Op(1, "X", 100, 7, 9, 90),
                new OpNesting.Op(null, "n", 10, 1, 1, 10)), got);
    }
}
