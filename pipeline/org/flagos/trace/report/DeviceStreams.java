package org.flagos.trace.report;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.flagos.trace.model.StringIds;

/**
 * How busy each device row (device, stream) of a trace was over the device span, in
 * {@link #BINS} equal slices: what the report draws as one strip a stream. Built from the device
 * events as they stream by, a fixed number of doubles a stream.
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

    /** One stream's strip. */
    public record Stream(String pid, String tid, double[] busyNs, long totalNs) {
    }

    private final long startNs;
    private final long endNs;
    private final List<Stream> streams;
    private final int folded;

    private DeviceStreams(long startNs, long endNs, List<Stream> streams, int folded) {
        this.startNs = startNs;
        this.endNs = endNs;
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

    /** Streams in the order their rows first appear in the trace. */
    public List<Stream> streams() {
        return streams;
    }

    /** Collects the strips of device events within [lo, hi]. */
    static final class Builder {
        private final long lo;
        private final long hi;
        private final double bin;
        private final List<double[]> busy = new ArrayList<>();
        private final List<long[]> total = new ArrayList<>();
        private final java.util.BitSet own = new java.util.BitSet();
        private final java.util.BitSet foldedRows = new java.util.BitSet();
        private final double[] foldedBusy = new double[BINS];
        private final long[] foldedTotal = new long[1];

        Builder(long lo, long hi) {
            this.lo = lo;
            this.hi = hi;
            this.bin = hi > lo ? (double) (hi - lo) / BINS : 1;
        }

        void add(int row, long start, long dur) {
            if (hi <= lo) {
                return;
            }
            double[] b = strip(row);
            (own.get(row) ? total.get(row) : foldedTotal)[0] += dur;
            long s = start - lo;
            long e = start + dur - lo;
            int first = (int) Math.min(BINS - 1, s / bin);
            int last = (int) Math.min(BINS - 1, e / bin);
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
            return new DeviceStreams(lo, hi, Collections.unmodifiableList(out), folded);
        }
    }
}
