package org.flagos.trace.report;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import org.flagos.trace.model.StringIds;

/**
 * How busy each device row (device, stream) of a trace was over the device span, in {@link #BINS}
 * equal slices of the time it shows: what the report draws as one strip a stream. Device work on
 * real captures comes in bursts far apart (a capture of 90 ms with 1.6 ms of work, most of it in
 * its last 2 ms), so equal slices of the whole span would put every burst in one or two slices. The
 * strips therefore leave out the long idle stretches, those where no stream of any device ran
 * anything ({@link Cut}), and slice the time that is left: a stretch is cut when it is longer than
 * all the time left shown ({@link #CUT_SHARE}), the longest first, at most {@link #MAX_CUTS} of them.
 * The page marks each cut and its length, so nothing is hidden: every nanosecond of device work is
 * in a shown slice, and a cut never holds any.
 *
 * <p>Built in two passes over the device events ({@link Builder}): the first marks which of
 * {@link #FINE} slices of the span hold any work, the second sums each stream's busy time per shown
 * slice. Bounded memory: a bit a fine slice, and {@link #BINS} doubles a stream.
 */
public final class DeviceStreams {
    /** Time slices of a strip. */
    public static final int BINS = 120;
    /**
     * Streams drawn with a strip of their own, in the order their rows first appear; the device work
     * of every later stream is folded into one more strip ({@link #folded()} says how many it holds),
     * so that the report's memory and page stay bounded on a trace of thousands of streams.
     */
    public static final int MAX_ROWS = 64;
    /** Slices of the span in which idle stretches are found: their length is known to a 1/FINE of the span. */
    static final int FINE = 1 << 14;
    /** An idle stretch is cut when it is at least this share of the time left shown after the cut: longer than all of it. */
    static final double CUT_SHARE = 1.0;
    /** Idle stretches cut at most. */
    static final int MAX_CUTS = 6;

    /** One stream's strip: busy ns in each of the {@link #BINS} shown slices, and in all. */
    public record Stream(String pid, String tid, double[] busyNs, long totalNs) {
    }

    /** An idle stretch left out of the strips: no device work on any stream from {@code startNs} to {@code endNs}. */
    public record Cut(double startNs, double endNs) {
        /** Its length, ns. */
        public double lengthNs() {
            return endNs - startNs;
        }
    }

    private final long startNs;
    private final long endNs;
    private final List<Cut> cuts;
    private final List<Stream> streams;
    private final int folded;

    private DeviceStreams(long startNs, long endNs, List<Cut> cuts, List<Stream> streams, int folded) {
        this.startNs = startNs;
        this.endNs = endNs;
        this.cuts = cuts;
        this.streams = streams;
        this.folded = folded;
    }

    /** Streams folded into the last strip (past the first {@link #MAX_ROWS}); 0 when none was. */
    public int folded() {
        return folded;
    }

    /** Start of the first device event, ns. */
    public long startNs() {
        return startNs;
    }

    /** End of the last device event, ns. */
    public long endNs() {
        return endNs;
    }

    /** The idle stretches left out, in time order. */
    public List<Cut> cuts() {
        return cuts;
    }

    /** The time the strips show: the span less its cuts, ns. */
    public double shownNs() {
        double shown = endNs - startNs;
        for (Cut c : cuts) {
            shown -= c.lengthNs();
        }
        return shown;
    }

    /** One slice of a strip, ns of shown time. */
    public double binNs() {
        return shownNs() / BINS;
    }

    /** Where {@code t} (ns, in the span and outside every cut) falls on the shown time, ns from its start. */
    public double shownAt(double t) {
        return shown(t, startNs, cuts);
    }

    private static double shown(double t, long lo, List<Cut> cuts) {
        double at = t - lo;
        for (int k = 0; k < cuts.size(); k++) { // indexed: called for every device event, no iterator made
            Cut c = cuts.get(k);
            if (c.endNs() <= t) {
                at -= c.lengthNs();
            } else if (c.startNs() < t) {
                at -= t - c.startNs(); // inside a cut (never for device work): its start
            }
        }
        return at;
    }

    /** Streams in the order their rows first appear in the trace. */
    public List<Stream> streams() {
        return streams;
    }

    /**
     * Collects the strips of device events within [lo, hi]: every event once to {@link #scan} it, then
     * {@link #cutIdle()}, then every event again to {@link #add} it to its stream.
     */
    static final class Builder {
        private final long lo;
        private final long hi;
        private final double fine;
        private final BitSet busyFine = new BitSet(FINE);
        private List<Cut> cuts;
        private double bin;
        private final List<double[]> busy = new ArrayList<>();
        private final List<long[]> total = new ArrayList<>();
        private final java.util.BitSet own = new java.util.BitSet();
        private final java.util.BitSet foldedRows = new java.util.BitSet();
        private final double[] foldedBusy = new double[BINS];
        private final long[] foldedTotal = new long[1];

        Builder(long lo, long hi) {
            this.lo = lo;
            this.hi = hi;
            this.fine = hi > lo ? (double) (hi - lo) / FINE : 1;
        }

        /** First pass: marks the fine slices an event touches (its ends' slices included, so that no cut holds any of it). */
        void scan(long start, long dur) {
            if (hi <= lo) {
                return;
            }
            int first = (int) Math.max(0, Math.min(FINE - 1, (start - lo) / fine));
            int last = (int) Math.max(0, Math.min(FINE - 1, (start + dur - lo) / fine));
            busyFine.set(first, last + 1);
        }

        /** Between the passes: chooses the idle stretches to cut, longest first. */
        void cutIdle() {
            List<Cut> idle = new ArrayList<>();
            for (int at = busyFine.nextClearBit(0); at < FINE; ) {
                int end = busyFine.nextSetBit(at);
                end = end < 0 ? FINE : end;
                idle.add(new Cut(lo + at * fine, lo + end * fine));
                at = busyFine.nextClearBit(end);
            }
            idle.sort((a, b) -> Double.compare(b.lengthNs(), a.lengthNs()));
            double shown = hi - lo;
            List<Cut> chosen = new ArrayList<>();
            for (Cut c : idle) {
                if (chosen.size() == MAX_CUTS || c.lengthNs() < CUT_SHARE * (shown - c.lengthNs())) {
                    break;
                }
                chosen.add(c);
                shown -= c.lengthNs();
            }
            chosen.sort((a, b) -> Double.compare(a.startNs(), b.startNs()));
            cuts = Collections.unmodifiableList(chosen);
            bin = hi > lo ? shown / BINS : 1;
        }

        /** Second pass: adds an event's busy time to its stream's shown slices. */
        void add(int row, long start, long dur) {
            if (cuts == null) {
                throw new IllegalStateException("add before cutIdle()");
            }
            if (hi <= lo) {
                return;
            }
            double[] b = strip(row);
            (own.get(row) ? total.get(row) : foldedTotal)[0] += dur;
            double s = shown(start, lo, cuts);
            double e = s + dur;
            int first = (int) Math.max(0, Math.min(BINS - 1, s / bin));
            int last = (int) Math.max(0, Math.min(BINS - 1, e / bin));
            for (int k = first; k <= last; k++) {
                double overlap = Math.min(e, (k + 1) * bin) - Math.max(s, k * bin);
                b[k] += Math.max(0, overlap);
            }
        }

        /** The strip of {@code row}: its own for the first {@link #MAX_ROWS} rows, the folded one after. */
        private double[] strip(int row) {
            if (own.get(row)) {
                return busy.get(row);
            }
            if (own.cardinality() >= MAX_ROWS) {
                foldedRows.set(row);
                return foldedBusy;
            }
            while (busy.size() <= row) {
                busy.add(null);
                total.add(null);
            }
            own.set(row);
            busy.set(row, new double[BINS]);
            total.set(row, new long[1]);
            return busy.get(row);
        }

        /** The strips; {@code rows} holds each row's key as "pid NUL tid". */
        DeviceStreams build(StringIds rows) {
            List<Stream> out = new ArrayList<>();
            for (int r = 0; r < busy.size(); r++) {
                if (busy.get(r) != null) {
                    String key = rows.get(r);
                    int nul = key.indexOf('\u0000');
                    out.add(new Stream(key.substring(0, nul), key.substring(nul + 1), busy.get(r), total.get(r)[0]));
                }
            }
            int folded = foldedRows.cardinality();
            if (folded > 0) {
                out.add(new Stream("", "", foldedBusy, foldedTotal[0]));
            }
            return new DeviceStreams(lo, hi, cuts == null ? List.of() : cuts, Collections.unmodifiableList(out), folded);
        }
    }
}
