package org.flagos.trace.report;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.ZipException;

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
    /** flagtrace merge's {@code pid_stride}. */
    static final long ASSUMED_STRIDE = 1_000;

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
        if (Files.isDirectory(path)) {
            throw new TraceFormatException(path + " is a directory, not a merged trace");
        }
        InputStream raw;
        try {
            raw = Files.newInputStream(path);
        } catch (NoSuchFileException e) {
            throw new TraceFormatException(path + ": no such file");
        }
        try (BufferedInputStream in = TraceInput.maybeGunzip(new BufferedInputStream(raw, 1 << 16));
             JsonParser p = TraceInput.parser(in)) {
            return new Pass(path).read(p);
        } catch (JsonProcessingException e) {
            String m = e.getOriginalMessage() == null ? "" : e.getOriginalMessage().lines().findFirst().orElse("");
            throw new TraceFormatException(path + (m.startsWith("Unexpected end-of-input") ? " ends in the middle of its JSON (truncated?)"
                    : " is not valid JSON (" + m + ")"));
        } catch (EOFException | ZipException e) {
            throw new TraceFormatException(path + " is not a whole gzip file; truncated?");
        }
    }

    /**
     * A merged trace: an object, every element of its events an event; the lines that refuse anything else are
     * {@code --ranks}' own, shorter than the summary's.
     */
    private static final TraceTopLevel.Rules RULES = new TraceTopLevel.Rules(false, true, false,
            "is not a merged trace: not a JSON object with traceEvents",
            "is not a trace: traceEvents holds something other than event objects", "is not a trace: no traceEvents array");

    /** One streaming pass. */
    private static final class Pass implements TraceTopLevel.Visitor {
        final Path path;
        final TreeMap<Integer, Rank> slots = new TreeMap<>();
        long pidStride = -1;
        boolean merged;
        long invalid;
        long unplaced;

        Pass(Path path) {
            this.path = path;
        }

        RankTimes read(JsonParser p) throws IOException {
            TraceTopLevel.walk(p, path, RULES, this);
            if (!merged) {
                throw new TraceFormatException(path + " is not a merged trace (no flagtrace_merge block):"
                        + " --ranks reads what flagtrace merge writes");
            }
            if (pidStride > 0 && pidStride != ASSUMED_STRIDE) {
                throw new TraceFormatException(path + " numbers its ranks' pids " + pidStride + " apart; this version reads "
                        + ASSUMED_STRIDE + " (flagtrace merge's)");
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

        /** The {@code flagtrace_merge} block: the stride and each slot's rank and host; the rest is skipped. */
        @Override
        public void block(String field, JsonToken v, JsonParser p) throws IOException {
            if (field.equals("flagtrace_merge") && v == JsonToken.START_OBJECT) {
                mergeBlock(p);
            } else {
                p.skipChildren();
            }
        }

        private void mergeBlock(JsonParser p) throws IOException {
            merged = true;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken v = p.nextToken();
                if (field.equals("pid_stride") && v == JsonToken.VALUE_NUMBER_INT) {
                    pidStride = p.getLongValue();
                } else if (field.equals("inputs") && v == JsonToken.START_ARRAY) {
                    while (p.nextToken() == JsonToken.START_OBJECT) {
                        long slot = -1;
                        long rank = -1;
                        String host = null;
                        while (p.nextToken() == JsonToken.FIELD_NAME) {
                            String f = p.currentName();
                            JsonToken fv = p.nextToken();
                            if (f.equals("slot") && fv == JsonToken.VALUE_NUMBER_INT) {
                                slot = p.getLongValue();
                            } else if (f.equals("rank") && fv == JsonToken.VALUE_NUMBER_INT) {
                                rank = p.getLongValue();
                            } else if (f.equals("host") && fv == JsonToken.VALUE_STRING) {
                                host = p.getText();
                            } else {
                                p.skipChildren();
                            }
                        }
                        if (slot >= 0 && slot < Integer.MAX_VALUE) {
                            Rank r = slot((int) slot);
                            r.rank = rank;
                            r.host = host;
                        }
                    }
                } else {
                    p.skipChildren();
                }
            }
        }

        /** One event: a complete one counts toward its rank's steps or device work. */
        @Override
        public void event(JsonParser p) throws IOException {
            String ph = null;
            String cat = null;
            String name = null;
            String pid = null;
            String ts = null;
            String dur = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken v = p.nextToken();
                if (v == JsonToken.START_OBJECT || v == JsonToken.START_ARRAY) {
                    p.skipChildren();
                    continue;
                }
                String text = v == JsonToken.VALUE_NULL ? null : p.getText();
                switch (field) {
                    case "ph": ph = text; break;
                    case "cat": cat = text; break;
                    case "name": name = text; break;
                    case "pid": pid = text; break;
                    case "ts": ts = text; break;
                    case "dur": dur = text; break;
                    default: break;
                }
            }
            if (!"X".equals(ph)) {
                return;
            }
            long start;
            long length;
            try {
                start = Micros.toNanos(ts);
                length = dur == null ? 0 : Micros.toNanos(dur);
            } catch (RuntimeException e) {
                invalid++;
                return;
            }
            if (name == null || length < 0 || start > Long.MAX_VALUE - length) {
                invalid++;
                return;
            }
            // merged pids are (slot + 1) * pid_stride + n; the block comes after the events, so its stride is checked at the end
            long number;
            try {
                number = Long.parseLong(pid);
            } catch (NumberFormatException e) {
                unplaced++;
                return;
            }
            long stride = ASSUMED_STRIDE;
            if (number < stride || number / stride - 1 >= Integer.MAX_VALUE) {
                unplaced++;
                return;
            }
            Rank r = slot((int) (number / stride - 1));
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
