package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link OverheadEvents}: each profiler-overhead event goes to the innermost host op enclosing it, on any thread (the
 * latest-starting one where threads disagree), takes that op's row and External id; one no op encloses stays where it
 * was; a runtime call is not an op; the count is bounded.
 */
class OverheadEventsTest {
    /** A host record {@code [row, start, -end, seq, name<<8|class, link]}, times in ns. */
    private static long[] host(int row, long start, long end, int seq, EventClass c, long link) {
        return new long[] {row, start, -end, seq, (long) seq << 8 | c.ordinal(), link};
    }

    /** A cursor over {@code records} sorted as the builder sorts host records: row, start, longer first, seq. */
    private static RecordSorter.Cursor cursor(List<long[]> records) {
        List<long[]> sorted = new ArrayList<>(records);
        sorted.sort(Comparator.<long[]>comparingLong(r -> r[0]).thenComparingLong(r -> r[1]).thenComparingLong(r -> r[2])
                .thenComparingLong(r -> r[3]));
        int[] at = {0};
        return into -> {
            if (at[0] == sorted.size()) {
                return false;
            }
            System.arraycopy(sorted.get(at[0]++), 0, into, 0, KeyAveragesBuilder.HOST_WIDTH);
            return true;
        };
    }

    @Test
    void theInnermostEnclosingOpOwnsIt() throws IOException {
        OverheadEvents o = new OverheadEvents();
        o.add(300, 400, 100, 1, 99); // recorded on a thread of its own (row 99), as CUPTI's overhead records are
        o.attach(cursor(List.of(host(1, 0, 1000, 1, EventClass.HOST_OP, 11), host(1, 200, 500, 2, EventClass.HOST_OP, 12),
                host(1, 250, 450, 3, EventClass.RUNTIME, 13))));
        assertEquals(1, o.thread[0], "moved onto the op's thread");
        assertEquals(12, o.link[0], "the inner op's External id; the runtime call around it is not an op");
    }

    @Test
    void theLatestStartingOpWinsAcrossThreads() throws IOException {
        OverheadEvents o = new OverheadEvents();
        o.add(300, 400, 100, 1, 99);
        o.attach(cursor(List.of(host(1, 0, 1000, 1, EventClass.HOST_OP, 11), host(2, 250, 600, 2, EventClass.HOST_OP, 21))));
        assertEquals(2, o.thread[0]);
        assertEquals(21, o.link[0]);
    }

    @Test
    void oneNoOpEnclosesStaysWhereItWas() throws IOException {
        OverheadEvents o = new OverheadEvents();
        o.add(300, 1200, 100, 1, 99); // ends after the op
        o.add(2000, 2100, 101, 1, 98); // after every op
        o.attach(cursor(List.of(host(1, 0, 1000, 1, EventClass.HOST_OP, 11))));
        assertEquals(99, o.thread[0]);
        assertEquals(KeyAveragesBuilder.NO_LINK, o.link[0]);
        assertEquals(98, o.thread[1]);
        assertEquals(KeyAveragesBuilder.NO_LINK, o.link[1]);
    }

    @Test
    void orderIsByStartLongerFirstThenSequenceAndByThreadFirstWhenAsked() {
        OverheadEvents o = new OverheadEvents();
        o.add(500, 600, 3, 1, 1);
        o.add(100, 200, 4, 1, 2);
        o.add(100, 300, 5, 1, 2);
        o.add(100, 300, 2, 1, 1);
        assertArrayEquals(new int[] {3, 2, 1, 0}, o.order(false), "start, then the longer, then seq");
        assertArrayEquals(new int[] {3, 0, 2, 1}, o.order(true), "thread 1's, then thread 2's");
    }

    @Test
    void moreThanTheBoundAreRefused() {
        OverheadEvents o = new OverheadEvents();
        for (int i = 0; i < OverheadEvents.MAX; i++) {
            assertTrue(o.add(i, i + 1, i, 1, 1));
        }
        assertFalse(o.add(0, 1, 0, 1, 1));
        assertEquals(OverheadEvents.MAX, o.size);
        assertEquals(OverheadEvents.MAX - 1, o.start[OverheadEvents.MAX - 1], "every one kept as added, through the growth");
    }
}
