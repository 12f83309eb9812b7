package org.flagos.trace.report;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.flagos.trace.tracefile.TraceBlocks;
import org.flagos.trace.tracefile.TraceEvent;
import org.flagos.trace.tracefile.TraceFormatException;
import org.flagos.trace.tracefile.TraceReader;

/**
 * Per rank of a merged trace ({@code flagtrace merge}'s output): the time of each
 * {@code ProfilerStep#N} op and the device time split into computation, communication, memory
 * copies and sets and idle, read in one streaming pass. A rank is a merge slot (its pids are
 * {@code (slot + 1) * pid_stride + n}); the {@code flagtrace_merge} block names each slot's rank.
 *
 * <p>Memory held: per rank, one {@link IntervalUnion} per {@link DeviceWorkKind} (16 bytes per
 * disjoint busy interval, all of a rank's devices together) and two longs per step; events are
 * not kept.
 */
public final class RankTimes {
    /** The prefix of the host op that marks a training step, as torch's profiler names it. */
    public static final String STEP_PREFIX = "ProfilerStep#";
    /** Steps kept per rank at most: a trace with more is refused, not cut. */
    static final int MAX_STEPS = 1_000_000;
    /** Ranks (merge slots) one trace may hold: each is kept with its steps until the end. */
    static final int MAX_RANKS = 1 << 16;

    /** One rank of the merge. */
    public static final class Rank {
        final int slot;
        long rank = -1;
        String host;
        /** Step number to {start, end} of its op, in ns. */
        final TreeMap<Long, long[]> steps = new TreeMap<>();
        final IntervalUnion[] work = {new IntervalUnion(), new IntervalUnion(), new IntervalUnion()};
        long deviceStart = Long.MAX_VALUE;
        long deviceEnd = Long.MIN_VALUE;
        long start = Long.MAX_VALUE;
        long end = Long.MIN_VALUE;
        long deviceEvents;
        private long[] split;

        Rank(int slot) {
            this.slot = slot;
        }

        /** The merge slot (0 is the reference). */
        public int slot() {
            return slot;
        }

        /** The rank, or -1 when its trace named none. */
        public long rank() {
            return rank;
        }

        /** The host its trace named, or null. */
        public String host() {
            return host;
        }

        /** "rank R", or "slot S" for a trace without a rank. */
        public String label() {
            return rank >= 0 ? "rank " + rank : "slot " + slot;
        }

        /** Step number to the step op's duration in ns, in step order. */
        public Map<Long, Long> stepTimes() {
            TreeMap<Long, Long> out = new TreeMap<>();
            steps.forEach((n, se) -> out.put(n, se[1] - se[0]));
            return out;
        }

        /** From the rank's first event's start to its last event's end, in ns (0 when it has none). */
        public long wholeNs() {
            return end > start ? end - start : 0;
        }

        /** From the rank's first device work's start to its last one's end, in ns (0 when it has none). */
        public long deviceSpanNs() {
            return deviceEnd > deviceStart ? deviceEnd - deviceStart : 0;
        }

        /** Device events counted (kernels, copies, sets). */
        public long deviceEvents() {
            return deviceEvents;
        }

        /**
         * The device span split into parts that sum to it: communication (its whole union), computation
         * not overlapped by communication, memory copies and sets overlapped by neither, idle (no device
         * work of the rank at all); then the overlap of communication with computation and the whole
         * computation union. All in ns.
         */
        long[] split() {
            if (split == null) {
                long comm = work[DeviceWorkKind.COMMUNICATION.ordinal()].length();
                long compute = work[DeviceWorkKind.COMPUTATION.ordinal()].length();
                IntervalUnion commOrCompute = work[DeviceWorkKind.COMMUNICATION.ordinal()].union(work[DeviceWorkKind.COMPUTATION.ordinal()]);
                long both = commOrCompute.length();
                long busy = commOrCompute.unionLength(work[DeviceWorkKind.MEMORY.ordinal()]);
                split = new long[] {both - comm, comm, busy - both, deviceSpanNs() - busy, comm + compute - both, compute};
            }
            return split;
        }

        /** Computation not overlapped by communication, ns. */
        public long computationNs() {
            return split()[0];
        }

        /** Communication (its union), ns. */
        public long communicationNs() {
            return split()[1];
        }

        /** Memory copies and sets overlapped by no kernel, ns. */
        public long memoryNs() {
            return split()[2];
        }

        /** The device span with no device work of this rank, ns. */
        public long idleNs() {
            return split()[3];
        }

        /** Time communication and computation ran at once, ns. */
        public long overlapNs() {
            return split()[4];
        }

        /** The whole computation union, overlapped or not, ns. */
        public long computationTotalNs() {
            return split()[5];
        }
    }

    private final List<Rank> ranks;
    private final long invalid;
    private final long unplaced;

    private RankTimes(List<Rank> ranks, long invalid, long unplaced) {
        this.ranks = ranks;
        this.invalid = invalid;
        this.unplaced = unplaced;
    }

    /** The ranks, by slot (the merge's order: rank by rank). */
    public List<Rank> ranks() {
        return ranks;
    }

    /** Complete events without a usable name, ts or dur: left out. */
    public long invalidEvents() {
        return invalid;
    }

    /** Complete events on a pid that is no merge slot's (not a number): left out. */
    public long unplacedEvents() {
        return unplaced;
    }

    /** Whether any rank has a step op. */
    public boolean hasSteps() {
        for (Rank r : ranks) {
            if (!r.steps.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /** Reads a merged trace (Chrome JSON, gzipped or not); anything else ends in a {@link TraceFormatException}. */
    public static RankTimes read(Path path) throws IOException {
        Pass pass = new Pass(path);
        TraceBlocks blocks = TraceReader.read(path, "not a merged trace", TraceReader.Options.FIELDS, pass);
        return pass.finish(blocks);
    }

    /** One streaming pass. */
    private static final class Pass implements TraceReader.Visitor {
        final Path path;
        final TreeMap<Integer, Rank> slots = new TreeMap<>();
        long invalid;
        long unplaced;

        Pass(Path path) {
            this.path = path;
        }

        RankTimes finish(TraceBlocks blocks) throws IOException {
            if (!blocks.merged()) {
                throw new TraceFormatException(path + " is not a merged trace (no flagtrace_merge block):"
                        + " --ranks reads what flagtrace merge writes");
            }
            for (TraceBlocks.MergeInput in : blocks.mergeInputs().values()) {
                Rank r = slot(in.slot());
                r.rank = in.rank();
                r.host = in.host();
            }
            List<Rank> out = new ArrayList<>();
            for (Rank r : slots.values()) {
                if (r.start != Long.MAX_VALUE || r.rank >= 0) {
                    out.add(r);
                }
            }
            return new RankTimes(out, invalid, unplaced);
        }

        private Rank slot(int slot) throws TraceFormatException {
            Rank r = slots.get(slot);
            if (r == null) {
                if (slots.size() == MAX_RANKS) {
                    throw new TraceFormatException(path + " has more than " + MAX_RANKS + " ranks (merge slots)");
                }
                r = new Rank(slot);
                slots.put(slot, r);
            }
            return r;
        }

        /** One event: a complete one counts toward its rank's steps or device work. */
        @Override
        public void event(TraceEvent e) throws IOException {
            if (!"X".equals(e.ph())) {
                return;
            }
            if (e.name() == null || e.unusable() || e.tsNs() == TraceEvent.NONE) {
                invalid++;
                return;
            }
            String name = e.name();
            String cat = e.cat();
            long start = e.tsNs();
            long length = e.durNs() == TraceEvent.NONE ? 0 : e.durNs();
            // merged pids are (slot + 1) * pid_stride + n; the block, after the events, says which rank each slot is
            int slot = TraceBlocks.slotOf(e.pidNumber());
            if (slot < 0) {
                unplaced++;
                return;
            }
            Rank r = slot(slot);
            long end = start + length;
            r.start = Math.min(r.start, start);
            r.end = Math.max(r.end, end);
            EventClass c = EventClass.of(cat);
            if (c == EventClass.DEVICE) {
                DeviceWorkKind kind = DeviceWorkKind.of(cat, name);
                r.work[kind.ordinal()].add(start, end);
                r.deviceStart = Math.min(r.deviceStart, start);
                r.deviceEnd = Math.max(r.deviceEnd, end);
                r.deviceEvents++;
            } else if (c == EventClass.HOST_OP && name.startsWith(STEP_PREFIX)) {
                step(r, name, start, end);
            }
        }

        private void step(Rank r, String name, long start, long end) throws TraceFormatException {
            long n;
            try {
                n = Long.parseLong(name.substring(STEP_PREFIX.length()));
            } catch (NumberFormatException e) {
                return; // not a step number: an op that only looks like one
            }
            long[] se = r.steps.get(n);
            if (se == null) {
                if (r.steps.size() == MAX_STEPS) {
                    throw new TraceFormatException(path + " has more than " + MAX_STEPS + " steps in " + r.label());
                }
                r.steps.put(n, new long[] {start, end});
            } else {
                se[0] = Math.min(se[0], start);
                se[1] = Math.max(se[1], end);
            }
        }
    }
}
