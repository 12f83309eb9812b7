package org.flagos.trace.sql;

import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Objects;
import org.flagos.trace.stages.KeyAveragesRule;

/**
 * rank_ops' nesting: each thread's host events (rank_ops_hosts.sql's rows, read in {@link #ORDER}) nested with a
 * stack as torch's {@code _populate_cpu_children} nests them and measured by {@link KeyAveragesRule}, in one pass:
 * an event is the child of the innermost open event it lies in ({@link KeyAveragesRule#nests}); one that does not lie
 * in the open event closes it. Each event gives one row ({@link #OUTPUT}) when it closes: its self CPU time (its
 * duration less the union of its direct children's spans, never negative), its own device time and its device total
 * (its own and its descendants'). rank_ops.sql sums those rows by rank and name. Every engine runs it the same way
 * (DuckDB streams the ordered rows through it in the JVM, Spark in one task a partition of threads), as
 * {@link CriticalPathSweep} runs the critical path's sweep: portable SQL has no stack, and the windows that
 * found each event's subtree without one (a search over the bits of its number, 14 windows) cost Spark about a
 * hundred generated classes and tens of seconds of compiling cold (docs/benchmarks.md). Memory: the open events of
 * one thread. This class uses nothing but the JDK and {@link KeyAveragesRule}, so the spark jar carries both.
 */
public final class OpNesting implements Iterator<OpNesting.Op> {
    /** The order the input rows must come in: a thread's events together, in start order, longer first. */
    public static final String ORDER = "rank, pid, tid, ts_ns, end_ns DESC, external_id NULLS LAST, name NULLS LAST";

    /** The columns of an output row (the table rank_ops.sql reads as {@value #TABLE}). */
    public static final String OUTPUT = "rank INTEGER, name VARCHAR, dur_ns BIGINT, self_device_ns BIGINT, device_total_ns BIGINT,"
            + " self_cpu_ns BIGINT";

    /** The table of the nested events rank_ops.sql reads. */
    public static final String TABLE = "rank_ops_nested";

    /** The step that gives the host events (rank_ops_hosts.sql, over {@code events}). */
    public static final String HOSTS = "rank_ops_hosts";

    /** rank_ops_hosts.sql's query (over {@code events}): the host events to nest, in no order. */
    public static String hostsQuery() {
        return Analyses.load(HOSTS);
    }

    /** One host event of rank_ops_hosts.sql: its thread (rank, pid, tid: each may be null), span, name, own device time. */
    public record Host(Integer rank, Long pid, Long tid, long ts, long end, String name, long selfDevice) {
    }

    /** One nested event: rank, name, duration, own device time, device total, self CPU time. */
    public record Op(Integer rank, String name, long dur, long selfDevice, long deviceTotal, long selfCpu) {
    }

    private final Iterator<Host> in;
    /** The event read that does not lie in the innermost open one: it waits while the open events close. */
    private Host next;
    private Op ready;

    // the open events, innermost last
    private int depth;
    private Host[] open = new Host[16];
    private long[] childDevice = new long[16];
    private KeyAveragesRule.UnionInStartOrder[] unions = new KeyAveragesRule.UnionInStartOrder[16];

    /** Nests {@code in}, its rows in {@link #ORDER}; read lazily. */
    public OpNesting(Iterator<Host> in) {
        this.in = in;
    }

    @Override
    public boolean hasNext() {
        while (ready == null) {
            Host h;
            if (next != null) {
                h = next;
                next = null;
            } else if (in.hasNext()) {
                h = in.next();
            } else if (depth > 0) {
                ready = pop();
                continue;
            } else {
                return false;
            }
            Host p = depth == 0 ? null : open[depth - 1];
            if (p != null && !(Objects.equals(p.rank(), h.rank()) && Objects.equals(p.pid(), h.pid()) && Objects.equals(p.tid(), h.tid())
                    && KeyAveragesRule.nests(p.ts(), p.end(), h.ts(), h.end()))) {
                next = h;
                ready = pop();
            } else {
                push(h);
            }
        }
        return true;
    }

    @Override
    public Op next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        Op o = ready;
        ready = null;
        return o;
    }

    private void push(Host h) {
        if (depth == open.length) {
            open = Arrays.copyOf(open, depth * 2);
            childDevice = Arrays.copyOf(childDevice, depth * 2);
            unions = Arrays.copyOf(unions, depth * 2);
        }
        open[depth] = h;
        childDevice[depth] = 0;
        if (unions[depth] == null) {
            unions[depth] = new KeyAveragesRule.UnionInStartOrder();
        }
        unions[depth].reset();
        depth++;
    }

    private Op pop() {
        int d = --depth;
        Host h = open[d];
        open[d] = null;
        long dur = h.end() - h.ts();
        long total = h.selfDevice() + childDevice[d];
        Op o = new Op(h.rank(), h.name(), dur, h.selfDevice(), total, KeyAveragesRule.selfNs(dur, unions[d].union()));
        if (d > 0) {
            childDevice[d - 1] += total;
            unions[d - 1].add(h.ts(), h.end(), open[d - 1].ts(), open[d - 1].end());
        }
        return o;
    }
}
