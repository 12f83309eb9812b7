package org.flagos.trace.stages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link KeyAveragesRule}: the nesting edges, the post-order, self time, and both unions against a brute-force union. */
class KeyAveragesRuleTest {
    @Test
    void nestsAtItsEdges() {
        assertTrue(KeyAveragesRule.nests(10, 20, 10, 20), "the same span nests (comes after: longer first, tie)");
        assertTrue(KeyAveragesRule.nests(10, 20, 10, 15));
        assertTrue(KeyAveragesRule.nests(10, 20, 19, 20));
        assertTrue(KeyAveragesRule.nests(10, 20, 15, 15), "zero length inside");
        assertFalse(KeyAveragesRule.nests(10, 20, 20, 20), "zero length at the parent's end");
        assertFalse(KeyAveragesRule.nests(10, 20, 20, 25), "starts at the parent's end");
        assertFalse(KeyAveragesRule.nests(10, 20, 15, 21), "crosses the end");
        assertFalse(KeyAveragesRule.nests(10, 20, 9, 15), "starts before");
        assertFalse(KeyAveragesRule.nests(10, 10, 10, 10), "a zero-length parent has no child");
    }

    @Test
    void postOrderPutsChildrenBeforeParentsAndZeroLengthLast() {
        assertTrue(KeyAveragesRule.postOrder(0, 10, 0, 20) < 0, "earlier end first");
        assertTrue(KeyAveragesRule.postOrder(0, 20, 0, 10) > 0);
        assertTrue(KeyAveragesRule.postOrder(5, 20, 0, 20) < 0, "same end: the later start (the child) first");
        assertTrue(KeyAveragesRule.postOrder(0, 20, 5, 20) > 0);
        assertTrue(KeyAveragesRule.postOrder(20, 20, 0, 20) > 0, "zero length after what ends where it is");
        assertTrue(KeyAveragesRule.postOrder(0, 20, 20, 20) < 0);
        assertEquals(0, KeyAveragesRule.postOrder(3, 20, 3, 20));
        assertEquals(0, KeyAveragesRule.postOrder(20, 20, 20, 20));
    }

    @Test
    void selfTimeIsNeverNegative() {
        assertEquals(7, KeyAveragesRule.selfNs(10, 3));
        assertEquals(0, KeyAveragesRule.selfNs(10, 10));
        assertEquals(0, KeyAveragesRule.selfNs(10, 12));
    }

    private static long bruteUnion(List<long[]> children, long ps, long pe) {
        BitSet covered = new BitSet();
        for (long[] c : children) {
            long s = Math.max(c[0], ps);
            long e = Math.min(c[1], pe);
            if (e > s) {
                covered.set((int) s, (int) e);
            }
        }
        return covered.cardinality();
    }

    private static boolean anyOverlap(List<long[]> byStart) {
        long reach = Long.MIN_VALUE;
        for (long[] c : byStart) {
            if (c[0] < reach) {
                return true;
            }
            reach = Math.max(reach, c[1]);
        }
        return false;
    }

    @Test
    void bothUnionsEqualTheBruteForceUnionOfClippedChildren() {
        Random r = new Random(30);
        KeyAveragesRule.UnionInStartOrder byStart = new KeyAveragesRule.UnionInStartOrder();
        KeyAveragesRule.UnionInEndOrder byEnd = new KeyAveragesRule.UnionInEndOrder();
        int overlapping = 0;
        for (int round = 0; round < 3000; round++) {
            long ps = r.nextInt(50);
            long pe = ps + r.nextInt(300);
            List<long[]> children = new ArrayList<>();
            int n = r.nextInt(8);
            for (int i = 0; i < n; i++) {
                long s = r.nextInt(400);
                children.add(new long[] {s, s + r.nextInt(r.nextBoolean() ? 20 : 150)});
            }
            long want = bruteUnion(children, ps, pe);

            children.sort(Comparator.comparingLong((long[] c) -> c[0]).thenComparingLong(c -> -c[1]));
            byStart.reset();
            for (long[] c : children) {
                byStart.add(c[0], c[1], ps, pe);
            }
            assertEquals(want, byStart.union(), () -> "in start order: " + Arrays.deepToString(children.toArray()) + " in [" + ps + ", " + pe + "]");
            if (children.stream().allMatch(c -> KeyAveragesRule.nests(ps, pe, c[0], c[1]))) { // children as the walk nests them
                assertEquals(anyOverlap(children), byStart.overlapped(), () -> Arrays.deepToString(children.toArray()));
                overlapping += byStart.overlapped() ? 1 : 0;
            }

            children.sort(Comparator.comparingLong((long[] c) -> -c[1]).thenComparingLong(c -> c[0]));
            byEnd.reset();
            for (long[] c : children) {
                byEnd.add(c[0], c[1], c[1] - c[0], ps, pe);
            }
            assertEquals(want, byEnd.union(), () -> "in end order: " + Arrays.deepToString(children.toArray()) + " in [" + ps + ", " + pe + "]");
        }
        assertTrue(overlapping > 20, "overlapping children were exercised: " + overlapping);
    }

    @Test
    void aMergedEntryInEndOrderAddsAtMostItsCover() {
        KeyAveragesRule.UnionInEndOrder u = new KeyAveragesRule.UnionInEndOrder();
        u.add(10, 50, 15, 0, 100); // spans 40 ns, covers 15 of its own
        assertEquals(15, u.union());
        u.add(0, 20, 20, 0, 100); // below the lowest start seen (10): adds [0, 10]
        assertEquals(25, u.union());
        u.reset();
        assertEquals(0, u.union());
        u.add(0, 200, 200, 50, 100); // clipped to the parent
        assertEquals(50, u.union());
    }
}
