package org.flagos.trace.stages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.flagos.trace.model.NameTable;
import org.junit.jupiter.api.Test;

/**
 * The streaming fold against the rule it implements, computed the plain way on the same ops: random
 * op forests on several threads (children touching each other and their parent's edges, zero-length
 * ops in the gaps, threads overlapping in time), folded in each thread's post-order with the threads
 * interleaved; every name's count, CPU total, self CPU (duration less its children's), device total
 * (own plus children's totals) and self device equal the plain computation, to the nanosecond. Also
 * a parent over more siblings than are kept apart, and an op that crosses its neighbour.
 */
class OpSummaryFoldTest {
    private static final String[] NAMES = {"aten::mm", "aten::add", "step", "outer", "deep"};
    private static final String[] CALLS = {"cudaLaunchKernel", "cudaMemcpyAsync"};

    private static final class Op {
        final int name;
        final long ext;
        final long thread;
        final long start;
        final long end;
        final long selfDevice;
        final List<Op> children = new ArrayList<>();
        /** A runtime call: a leaf on its op's row, named from CALLS, no device time of its own. */
        boolean call;

        Op(int name, long ext, long thread, long start, long end, long selfDevice) {
            this.name = name;
            this.ext = ext;
            this.thread = thread;
            this.start = start;
            this.end = end;
            this.selfDevice = selfDevice;
        }

        long totalDevice() {
            long t = call ? 0 : selfDevice;
            for (Op c : children) {
                t += c.totalDevice();
            }
            return t;
        }

        long self() {
            long s = end - start;
            for (Op c : children) {
                s -= c.end - c.start;
            }
            return s;
        }
    }

    private long nextExt;
    /** The runtime calls the forests made, walked before the ops (a call arrives before its op settles). */
    private final List<Op> calls = new ArrayList<>();

    /** An op over [s, e] with random children, disjoint (they may touch), and zero-length ops in strict gaps. */
    private Op tree(Random rnd, long thread, long s, long e, int depth, List<Op> all) {
        Op op = new Op(rnd.nextInt(NAMES.length), nextExt++, thread, s, e, rnd.nextInt(3) == 0 ? 0 : rnd.nextInt(5_000));
        all.add(op);
        if (depth == 0 || e - s < 8) {
            return op;
        }
        int k = rnd.nextInt(4);
        long[] p = new long[2 * k];
        for (int i = 0; i < p.length; i++) {
            p[i] = s + (long) (rnd.nextDouble() * (e - s));
        }
        java.util.Arrays.sort(p);
        List<long[]> spans = new ArrayList<>();
        for (int i = 0; i < k; i++) {
            long cs = p[2 * i];
            long ce = p[2 * i + 1];
            if (rnd.nextInt(4) == 0) {
                cs = i == 0 ? s : p[2 * i - 1]; // touch the parent's start or the previous child
            }
            if (ce - cs < 1 || ce - cs >= e - s) {
                continue;
            }
            spans.add(new long[] {cs, ce});
        }
        for (long[] c : spans) {
            op.children.add(tree(rnd, thread, c[0], c[1], depth - 1, all));
        }
        // zero-length ops and runtime calls strictly inside gaps between the children (never at an edge
        // they would nest in)
        long prev = s;
        List<Op> zeros = new ArrayList<>();
        for (int i = 0; i <= spans.size(); i++) {
            long next = i < spans.size() ? spans.get(i)[0] : e;
            if (next - prev >= 4 && rnd.nextInt(2) == 0) {
                long cs = prev + 1 + (long) (rnd.nextDouble() * (next - prev - 3));
                long ce = cs + 1 + (long) (rnd.nextDouble() * (next - 1 - cs - 1));
                if (cs > prev && ce < next && ce > cs) {
                    Op call = new Op(rnd.nextInt(CALLS.length), -1, thread, cs, ce, 0);
                    call.call = true;
                    calls.add(call);
                    zeros.add(call);
                    prev = ce; // a zero-length op below goes after the call, not inside it
                }
            }
            if (next - prev >= 2 && rnd.nextInt(3) == 0) {
                long z = prev + 1 + (long) (rnd.nextDouble() * (next - prev - 1));
                if (z > prev && z < next) {
                    Op zero = new Op(rnd.nextInt(NAMES.length), nextExt++, thread, z, z, rnd.nextInt(100));
                    all.add(zero);
                    zeros.add(zero);
                }
            }
            if (i < spans.size()) {
                prev = spans.get(i)[1];
            }
        }
        op.children.addAll(zeros);
        return op;
    }

    private static final Comparator<Op> POST_ORDER = (a, b) -> {
        int c = KeyAveragesRule.postOrder(a.start, a.end, b.start, b.end);
        return c != 0 ? c : Long.compare(b.ext, a.ext);
    };

    @Test
    void randomForestsFoldToThePlainRuleToTheNanosecond() {
        for (long seed = 1; seed <= 40; seed++) {
            Random rnd = new Random(seed);
            nextExt = 0;
            calls.clear();
            List<List<Op>> perThread = new ArrayList<>();
            List<Op> every = new ArrayList<>();
            for (long thread = 1; thread <= 3; thread++) {
                List<Op> all = new ArrayList<>();
                long t = 1_000_000 + rnd.nextInt(1_000);
                for (int r = 0; r < 5; r++) {
                    long len = 1_000 + rnd.nextInt(200_000);
                    tree(rnd, thread, t, t + len, 5, all);
                    t += len + (rnd.nextBoolean() ? 0 : rnd.nextInt(10_000)); // roots touch, or leave a gap
                }
                all.sort(POST_ORDER);
                perThread.add(all);
                every.addAll(all);
            }
            NameTable names = new NameTable();
            int[] ids = new int[NAMES.length];
            for (int i = 0; i < NAMES.length; i++) {
                ids[i] = names.intern(NAMES[i]);
            }
            OpSummaryFold fold = new OpSummaryFold(names);
            int[] callIds = new int[CALLS.length];
            for (int i = 0; i < CALLS.length; i++) {
                callIds[i] = names.intern(CALLS[i]);
            }
            java.util.Collections.shuffle(calls, rnd);
            for (Op c : calls) {
                fold.call(callIds[c.name], c.thread, c.start, c.end);
            }
            int[] at = new int[perThread.size()];
            for (int left = every.size(); left > 0; left--) {
                int th;
                do {
                    th = rnd.nextInt(perThread.size());
                } while (at[th] == perThread.get(th).size());
                Op op = perThread.get(th).get(at[th]++);
                fold.fold(ids[op.name], op.ext, op.thread, op.start, op.end, op.selfDevice);
            }
            Map<Integer, long[]> expected = new HashMap<>();
            for (Op op : every) {
                long[] row = expected.computeIfAbsent(op.name, n -> new long[5]);
                row[0]++;
                row[1] += op.end - op.start;
                row[2] += op.self();
                row[3] += op.totalDevice();
                row[4] += op.selfDevice;
            }
            OpSummary summary = fold.summary();
            Map<String, long[]> expectedCalls = new HashMap<>();
            for (Op c : calls) {
                long[] row = expectedCalls.computeIfAbsent(CALLS[c.name], n -> new long[2]);
                row[0]++;
                row[1] += c.end - c.start;
            }
            assertTrue(calls.size() > 20, "seed " + seed + ": " + calls.size() + " calls");
            Map<String, OpSummaryRow> callRows = new HashMap<>();
            for (OpSummaryRow r : summary.calls()) {
                callRows.put(r.name(), r);
            }
            assertEquals(expectedCalls.keySet(), callRows.keySet(), "seed " + seed);
            for (Map.Entry<String, long[]> e : expectedCalls.entrySet()) {
                OpSummaryRow row = callRows.get(e.getKey());
                assertEquals(e.getValue()[0], row.count(), "seed " + seed + " " + e.getKey());
                assertEquals(e.getValue()[1] / 1000.0, row.cpuTimeTotalUs(), 1e-6, "seed " + seed + " " + e.getKey());
                assertEquals(e.getValue()[1] / 1000.0, row.selfCpuTimeTotalUs(), 1e-6, "seed " + seed + " " + e.getKey());
            }
            for (Map.Entry<Integer, long[]> e : expected.entrySet()) {
                String where = "seed " + seed + " " + NAMES[e.getKey()];
                OpSummaryRow row = summary.row(NAMES[e.getKey()]);
                assertNotNull(row, where);
                long[] x = e.getValue();
                assertEquals(x[0], row.count(), where);
                assertEquals(x[1] / 1000.0, row.cpuTimeTotalUs(), 1e-6, where);
                assertEquals(x[2] / 1000.0, row.selfCpuTimeTotalUs(), 1e-6, where + " self CPU");
                assertEquals(x[3] / 1000.0, row.deviceTimeTotalUs(), 1e-6, where + " device total");
                assertEquals(x[4] / 1000.0, row.selfDeviceTimeTotalUs(), 1e-6, where);
            }
            assertEquals(0, fold.approximate(), "seed " + seed);
            assertEquals(0, fold.crossing(), "seed " + seed);
        }
    }

    @Test
    void aParentOverMoreSiblingsThanAreKeptApartIsStillExact() {
        NameTable names = new NameTable();
        int leaf = names.intern("leaf");
        int root = names.intern("root");
        OpSummaryFold fold = new OpSummaryFold(names);
        int n = 3 * OpSummaryFold.MAX_SIBLINGS;
        long busy = 0;
        for (int i = 0; i < n; i++) {
            long s = 1_000 + i * 100L;
            long len = 10 + (i % 7) * 10;
            fold.fold(leaf, i + 1, 1, s, s + len, 3);
            busy += len;
        }
        long end = 1_000 + n * 100L;
        fold.fold(root, n + 1, 1, 0, end, 5);
        OpSummaryRow r = fold.summary().row("root");
        assertEquals((end - busy) / 1000.0, r.selfCpuTimeTotalUs(), 1e-6, "merged entries are claimed whole");
        assertEquals((5 + 3L * n) / 1000.0, r.deviceTimeTotalUs(), 1e-6);
        assertEquals(0, fold.approximate());
    }

    @Test
    void anOpCrossingItsNeighbourIsCountedWithTheFirstExample() {
        NameTable names = new NameTable();
        int a = names.intern("a");
        int b = names.intern("b");
        OpSummaryFold fold = new OpSummaryFold(names);
        assertNull(fold.crossingNote());
        fold.fold(a, 1, 1, 100, 700, 0);
        fold.fold(b, 2, 1, 300, 900, 0); // starts inside a, ends after it
        assertEquals(1, fold.crossing());
        assertTrue(fold.crossingNote().contains("'b' (External id 2) starts inside 'a' (External id 1) but ends after it"),
                fold.crossingNote());
        OpSummary summary = fold.summary();
        assertEquals(0.6, summary.row("b").selfCpuTimeTotalUs(), 1e-9, "never negative, nothing taken from a crossing op");
        assertEquals(0.6, summary.row("a").selfCpuTimeTotalUs(), 1e-9);
    }

    @Test
    void aParentStartingBetweenThePartsOfAMergedEntryIsCountedAsApproximate() {
        NameTable names = new NameTable();
        int leaf = names.intern("leaf");
        int parent = names.intern("parent");
        OpSummaryFold fold = new OpSummaryFold(names);
        int n = OpSummaryFold.MAX_SIBLINGS + 1; // one past the bound: the older half is merged
        for (int i = 0; i < n; i++) {
            fold.fold(leaf, i + 1, 1, 1_000 + i * 100L, 1_000 + i * 100L + 50, 0);
        }
        assertEquals(0, fold.approximate());
        // starts inside the merged older half (between its parts), ends after the last leaf
        fold.fold(parent, n + 1, 1, 1_000 + 100L * (n / 4) + 75, 1_000 + n * 100L, 0);
        assertTrue(fold.approximate() > 0, "cannot be split exactly: counted");
        assertTrue(fold.summary().row("parent").selfCpuTimeTotalUs() >= 0);
    }
}
