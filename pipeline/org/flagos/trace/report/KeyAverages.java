package org.flagos.trace.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.flagos.trace.pipeline.LongIntHashMap;

/**
 * The key_averages table of a trace, computed from the trace alone with the semantics of torch's
 * profiler ({@code torch.autograd.profiler_util}):
 * <ul>
 * <li>host events (ops, runtime and driver calls, overhead) nest per thread by time containment;
 *     an event's self CPU time is its duration less its direct children's;</li>
 * <li>an op's self device time is the device events whose External id is the op's; its device
 *     total adds its children's device totals; runtime calls carry no device time;</li>
 * <li>an op that is the only child of a parent of the same name is folded into it (torch's
 *     {@code _remove_dup_nodes}): the parent keeps its own duration, takes the child's children and
 *     the child's device events (its own are dropped, as torch does), and the child is no row;</li>
 * <li>device events are rows of their own: self device time = device total = their duration;</li>
 * <li>an overhead event (it carries no External id; pid -1 in torch's traces) belongs to the
 *     innermost op enclosing it in time on any host thread: it nests as that op's child on the op's
 *     thread and is credited with the device events of the op's External id. This reproduces what
 *     torch's profiler links for CUPTI's "Activity Buffer Request" (and only that can be checked
 *     against a real torch table); an overhead event outside every op stays alone on its row.</li>
 * </ul>
 * Rows keep the order of each name's first event by start time (then longer first), which is the
 * order torch lists ties in when it sorts.
 */
public final class KeyAverages {
    private final List<KeyAveragesRow> rows;
    private final boolean cuda;

    private KeyAverages(List<KeyAveragesRow> rows, boolean cuda) {
        this.rows = rows;
        this.cuda = cuda;
    }

    /** Rows in first-appearance order. */
    public List<KeyAveragesRow> rows() {
        return rows;
    }

    /** The row named {@code name}, or null. */
    public KeyAveragesRow row(String name) {
        for (KeyAveragesRow r : rows) {
            if (r.name().equals(name)) {
                return r;
            }
        }
        return null;
    }

    /** Sum of self CPU time over {@code rows} in their order (torch's "Self CPU time total" sums the sorted rows). */
    public static double selfCpuTotalUs(List<KeyAveragesRow> rows) {
        double sum = 0;
        for (KeyAveragesRow r : rows) {
            sum += r.selfCpuUs();
        }
        return sum;
    }

    /** Sum of the device rows' time over {@code rows} in their order (torch's "Self CUDA time total"). */
    public static double selfDeviceTotalUs(List<KeyAveragesRow> rows) {
        double sum = 0;
        for (KeyAveragesRow r : rows) {
            if (r.device()) {
                sum += r.selfDeviceUs();
            }
        }
        return sum;
    }

    /** "CUDA" for CUDA traces, as torch names its device columns, else "device". */
    public String deviceLabel() {
        return cuda ? "CUDA" : "device";
    }

    /** Whether any row has device time: torch shows the device columns only then. */
    public boolean hasDeviceTime() {
        for (KeyAveragesRow r : rows) {
            if (r.deviceTotalUs() > 0 || r.device()) {
                return true;
            }
        }
        return false;
    }

    public static KeyAverages of(TraceFile trace) {
        return of(trace.events(), trace.originNs(), trace.cuda());
    }

    /** The table of {@code ev}; {@code originNs} is where the profile starts (see {@link TraceFile#originNs()}). */
    public static KeyAverages of(TraceEvents ev, long originNs, boolean cuda) {
        return new Builder(ev, originNs).build(cuda);
    }

    /** One computation over the events. */
    private static final class Builder {
        final TraceEvents ev;
        final int n;
        final int[] thread;
        final long[] link;
        final int[] parent;
        final boolean[] folded;
        final int[] childCount;
        final long origin;

        Builder(TraceEvents ev, long origin) {
            this.ev = ev;
            this.origin = origin;
            this.n = ev.size();
            this.thread = new int[n];
            this.link = new long[n];
            this.parent = new int[n];
            this.folded = new boolean[n];
            this.childCount = new int[n];
        }

        boolean host(int i) {
            EventClass c = ev.eventClass(i);
            return c == EventClass.HOST_OP || c == EventClass.RUNTIME || c == EventClass.OVERHEAD;
        }

        int byTime(int a, int b) {
            int c = Long.compare(ev.startNs(a), ev.startNs(b));
            if (c == 0) {
                c = Long.compare(ev.endNs(b), ev.endNs(a));
            }
            return c != 0 ? c : Integer.compare(a, b);
        }

        int byThreadThenTime(int a, int b) {
            int c = Integer.compare(thread[a], thread[b]);
            return c != 0 ? c : byTime(a, b);
        }

        KeyAverages build(boolean cuda) {
            for (int i = 0; i < n; i++) {
                thread[i] = ev.row(i);
                EventClass c = ev.eventClass(i);
                link[i] = c == EventClass.HOST_OP ? ev.externalId(i) : TraceEvents.NO_EXTERNAL_ID;
            }
            int[] hostOrder = hostEvents(false);
            nest(hostOrder);
            if (attachOverhead(hostOrder)) {
                nest(hostEvents(true));
            }
            int[] timeOrder = new int[n];
            for (int i = 0; i < n; i++) {
                timeOrder[i] = i;
            }
            IndexOrder.sort(timeOrder, n, this::byTime);
            fold(timeOrder);
            return aggregate(timeOrder, cuda);
        }

        /** Host events ordered by thread, then start, longer first; overhead events only when asked. */
        int[] hostEvents(boolean withOverhead) {
            int[] idx = new int[n];
            int m = 0;
            for (int i = 0; i < n; i++) {
                if (host(i) && (withOverhead || ev.eventClass(i) != EventClass.OVERHEAD)) {
                    idx[m++] = i;
                }
            }
            IndexOrder.sort(idx, m, this::byThreadThenTime);
            return Arrays.copyOf(idx, m);
        }

        /** Parents by containment on each thread, as torch's {@code _populate_cpu_children} finds them. */
        void nest(int[] order) {
            Arrays.fill(parent, -1);
            Arrays.fill(childCount, 0);
            int[] stack = new int[Math.max(1, order.length)];
            int depth = 0;
            int currentThread = Integer.MIN_VALUE;
            for (int i : order) {
                if (thread[i] != currentThread) {
                    currentThread = thread[i];
                    depth = 0;
                }
                while (depth > 0) {
                    int top = stack[depth - 1];
                    if (ev.startNs(i) >= ev.endNs(top) || ev.endNs(i) > ev.endNs(top)) {
                        depth--;
                    } else {
                        parent[i] = top;
                        childCount[top]++;
                        break;
                    }
                }
                stack[depth++] = i;
            }
        }

        /**
         * Moves each overhead event onto the thread of the innermost op enclosing it and links it to
         * that op's External id; returns whether any moved.
         */
        boolean attachOverhead(int[] hostOrder) {
            int threads = ev.rows();
            int[] from = new int[threads]; // hostOrder is grouped by thread: where each begins and ends
            int[] to = new int[threads];
            Arrays.fill(from, -1);
            for (int k = hostOrder.length - 1; k >= 0; k--) {
                from[thread[hostOrder[k]]] = k;
            }
            for (int k = 0; k < hostOrder.length; k++) {
                to[thread[hostOrder[k]]] = k + 1;
            }
            boolean moved = false;
            for (int i = 0; i < n; i++) {
                if (ev.eventClass(i) != EventClass.OVERHEAD) {
                    continue;
                }
                int best = -1;
                for (int t = 0; t < threads; t++) {
                    if (from[t] < 0) {
                        continue;
                    }
                    int op = innermostOp(hostOrder, from[t], to[t], ev.startNs(i), ev.endNs(i));
                    if (op >= 0 && (best < 0 || ev.startNs(op) > ev.startNs(best))) {
                        best = op;
                    }
                }
                if (best >= 0) {
                    thread[i] = thread[best];
                    link[i] = link[best];
                    moved = true;
                }
            }
            return moved;
        }

        /** The innermost host op among {@code hostOrder[lo, hi)} (one thread) whose span holds [start, end], or -1. */
        int innermostOp(int[] hostOrder, int lo, int hi, long start, long end) {
            // last event of the thread starting at or before start
            int a = lo;
            int b = hi - 1;
            int last = -1;
            while (a <= b) {
                int mid = (a + b) >>> 1;
                if (ev.startNs(hostOrder[mid]) <= start) {
                    last = mid;
                    a = mid + 1;
                } else {
                    b = mid - 1;
                }
            }
            for (int e = last < 0 ? -1 : hostOrder[last]; e >= 0; e = parent[e]) {
                if (ev.eventClass(e) == EventClass.HOST_OP && ev.startNs(e) <= start && ev.endNs(e) >= end) {
                    return e;
                }
            }
            return -1;
        }

        int liveParent(int i) {
            int p = parent[i];
            while (p >= 0 && folded[p]) {
                p = parent[p];
            }
            parent[i] = p;
            return p;
        }

        /** torch's {@code _remove_dup_nodes}, pass after pass until nothing folds. */
        void fold(int[] timeOrder) {
            boolean changed = true;
            while (changed) {
                changed = false;
                for (int i : timeOrder) {
                    if (folded[i] || !host(i)) {
                        continue;
                    }
                    int p = liveParent(i);
                    if (p >= 0 && ev.nameId(p) == ev.nameId(i) && childCount[p] == 1) {
                        childCount[p] = childCount[i];
                        link[p] = link[i];
                        folded[i] = true; // its children now resolve to p
                        changed = true;
                    }
                }
            }
        }

        KeyAverages aggregate(int[] timeOrder, boolean cuda) {
            // torch's arithmetic: times are doubles in microseconds from the profile's start, a
            // duration the difference of two of them, sums taken in event order.
            double[] elapsed = new double[n];
            for (int i = 0; i < n; i++) {
                elapsed[i] = (ev.endNs(i) - origin) / 1000.0 - (ev.startNs(i) - origin) / 1000.0;
            }
            LongIntHashMap slotOfExternalId = new LongIntHashMap(1024, -1);
            double[] deviceByExternalId = new double[16];
            for (int i = 0; i < n; i++) { // in trace order, as torch appends an op's kernels
                if (ev.eventClass(i) == EventClass.DEVICE && ev.externalId(i) != TraceEvents.NO_EXTERNAL_ID) {
                    int slot = slotOfExternalId.get(ev.externalId(i));
                    if (slot < 0) {
                        slot = slotOfExternalId.size();
                        slotOfExternalId.put(ev.externalId(i), slot);
                        if (slot == deviceByExternalId.length) {
                            deviceByExternalId = Arrays.copyOf(deviceByExternalId, slot * 2);
                        }
                    }
                    deviceByExternalId[slot] += elapsed[i];
                }
            }
            // live children of each live host event, in time order
            int[] childStart = new int[n + 1];
            for (int i : timeOrder) {
                if (!folded[i] && host(i) && liveParent(i) >= 0) {
                    childStart[parent[i] + 1]++;
                }
            }
            for (int i = 0; i < n; i++) {
                childStart[i + 1] += childStart[i];
            }
            int[] children = new int[childStart[n]];
            int[] fill = Arrays.copyOf(childStart, n);
            for (int i : timeOrder) {
                if (!folded[i] && host(i) && parent[i] >= 0) {
                    children[fill[parent[i]]++] = i;
                }
            }
            double[] selfCpu = new double[n];
            double[] selfDevice = new double[n];
            double[] deviceTotal = new double[n];
            for (int k = n - 1; k >= 0; k--) { // children come after their parents in time order
                int i = timeOrder[k];
                if (folded[i]) {
                    continue;
                }
                if (!host(i)) {
                    selfDevice[i] = elapsed[i];
                    deviceTotal[i] = elapsed[i];
                    continue;
                }
                double childCpu = 0;
                double childDevice = 0;
                for (int c = childStart[i]; c < childStart[i + 1]; c++) {
                    childCpu += elapsed[children[c]];
                    childDevice += deviceTotal[children[c]];
                }
                int slot = link[i] == TraceEvents.NO_EXTERNAL_ID ? -1 : slotOfExternalId.get(link[i]);
                double kernels = slot < 0 ? 0 : deviceByExternalId[slot];
                selfCpu[i] = elapsed[i] - childCpu;
                deviceTotal[i] = kernels + childDevice;
                selfDevice[i] = deviceTotal[i] - childDevice;
            }
            int[] rowOfName = new int[ev.names()];
            Arrays.fill(rowOfName, -1);
            List<double[]> acc = new ArrayList<>();
            List<long[]> counts = new ArrayList<>();
            for (int i : timeOrder) {
                if (folded[i] || ev.eventClass(i) == EventClass.OTHER) {
                    continue;
                }
                int name = ev.nameId(i);
                if (rowOfName[name] < 0) {
                    rowOfName[name] = acc.size();
                    acc.add(new double[4]);
                    counts.add(new long[] {0, name, ev.eventClass(i) == EventClass.DEVICE ? 1 : 0});
                }
                double[] a = acc.get(rowOfName[name]);
                counts.get(rowOfName[name])[0]++;
                if (host(i)) {
                    a[0] += selfCpu[i];
                    a[1] += elapsed[i];
                }
                a[2] += selfDevice[i];
                a[3] += deviceTotal[i];
            }
            List<KeyAveragesRow> rows = new ArrayList<>(acc.size());
            for (int r = 0; r < acc.size(); r++) {
                double[] a = acc.get(r);
                long[] c = counts.get(r);
                rows.add(new KeyAveragesRow(ev.nameOf((int) c[1]), c[2] == 1, c[0], a[0], a[1], a[2], a[3]));
            }
            return new KeyAverages(List.copyOf(rows), cuda);
        }
    }
}
