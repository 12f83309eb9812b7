package org.flagos.trace.stages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link SpanNesting}: what it accepts on a stream is always a nest; exact cases in and out of start order. */
class SpanNestingTest {
    private static final long S0 = StreamSpans.streamKey(0, 7);
    private static final long S1 = StreamSpans.streamKey(0, 8);

    /** Whether two closed spans partly overlap (neither disjoint, touching included, nor one inside the other). */
    private static boolean cross(long[] a, long[] b) {
        boolean disjoint = a[1] <= b[0] || b[1] <= a[0];
        boolean nested = a[0] <= b[0] && b[1] <= a[1] || b[0] <= a[0] && a[1] <= b[1];
        return !disjoint && !nested;
    }

    @Test
    void inStartOrderNestedAndDisjointSpansAreTakenAndACrossingOneRefused() {
        SpanNesting n = new SpanNesting();
        assertTrue(n.accept(S0, 0, 100));
        assertTrue(n.accept(S0, 10, 50)); // inside
        assertTrue(n.accept(S0, 20, 30)); // inside that
        assertTrue(n.accept(S0, 50, 60)); // touches the end of [10, 50]: disjoint, inside [0, 100]
        assertFalse(n.accept(S0, 55, 120)); // crosses [0, 100]
        assertTrue(n.accept(S0, 100, 120)); // after [0, 100]
        assertTrue(n.accept(S1, 55, 120), "another stream has its own nest");
        assertTrue(n.accept(S0, 120, 120));
    }

    @Test
    void anEarlierSpanIsTakenWhenItNestsAndRefusedWhenItCrossesOrSharesAMisreadEdge() {
        SpanNesting n = new SpanNesting();
        assertTrue(n.accept(S0, 100, 200));
        assertTrue(n.accept(S0, 300, 400));
        assertTrue(n.accept(S0, 50, 250), "written late, around [100, 200]");
        assertFalse(n.accept(S0, 150, 350), "written late, crosses [300, 400]");
        assertFalse(n.accept(S0, 10, 100), "ends where an earlier-written span begins");
        assertFalse(n.accept(S0, 100, 220), "begins with a span it encloses");
        assertTrue(n.accept(S0, 0, 1000), "encloses every span so far");
    }

    @Test
    void whatIsAcceptedIsAlwaysANestOnEveryStream() {
        Random r = new Random(30);
        int refused = 0;
        int taken = 0;
        for (int round = 0; round < 200; round++) {
            SpanNesting n = new SpanNesting();
            List<List<long[]>> acceptedPer = List.of(new ArrayList<>(), new ArrayList<>());
            long clock = 0;
            for (int i = 0; i < 300; i++) {
                int stream = r.nextInt(2);
                // mostly in start order, sometimes a span from the past
                clock += r.nextInt(20);
                long s = r.nextInt(8) == 0 ? Math.max(0, clock - r.nextInt(400)) : clock;
                long e = s + r.nextInt(200);
                boolean ok = n.accept(stream == 0 ? S0 : S1, s, e);
                if (ok) {
                    long[] span = {s, e};
                    for (long[] other : acceptedPer.get(stream)) {
                        if (cross(span, other)) {
                            fail("round " + round + ": took [" + s + ", " + e + "] that crosses [" + other[0] + ", " + other[1] + "]");
                        }
                    }
                    acceptedPer.get(stream).add(span);
                    taken++;
                } else {
                    refused++;
                }
            }
        }
        assertTrue(taken > 10_000 && refused > 1_000, "the random spans exercised both answers: " + taken + " taken, " + refused + " refused");
    }

    @Test
    void inOrderSpansThatNeverCrossAreAllTaken() {
        SpanNesting n = new SpanNesting();
        // a three-deep op tree repeated; every span nests or is disjoint, in start order
        int taken = 0;
        for (long t = 0; t < 10_000; t += 100) {
            taken += n.accept(S0, t, t + 90) ? 1 : 0;
            taken += n.accept(S0, t + 10, t + 50) ? 1 : 0;
            taken += n.accept(S0, t + 20, t + 30) ? 1 : 0;
            taken += n.accept(S0, t + 50, t + 90) ? 1 : 0;
        }
        assertEquals(400, taken);
    }

    @Test
    void aLateSpanStartingBeforeForgottenSpansEndedIsRefusedUnlessItEnclosesAll() {
        SpanNesting n = new SpanNesting();
        for (int i = 0; i < SpanNesting.RECENT + 10; i++) {
            assertTrue(n.accept(S0, 1000L * i, 1000L * i + 10));
        }
        // inside the first span, now forgotten: it starts before the forgotten spans ended, so it cannot be proven nested
        assertFalse(n.accept(S0, 5, 8));
        assertTrue(n.accept(S0, 0, 1000L * (SpanNesting.RECENT + 10)));
    }
}
