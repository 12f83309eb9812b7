package org.flagos.trace.model;

import java.util.Map;
import java.util.TreeMap;

/**
 * What a decoder did with the buffers it was given: records published per kind, records of
 * kinds it does not decode (skipped, by vendor kind number), and bytes it could not decode.
 * Nothing is dropped without being counted here.
 */
public final class DecodeStats {
    private final long[] published = new long[EventKind.count()];
    private long bindings;
    private final Map<Integer, Long> skippedByVendorKind = new TreeMap<>();
    private long undecodableBytes;
    private long invalidRecords;
    private long unnamedKernels;
    private long incompleteRecords;
    private long unwrittenBytes;
    private long annotationAttributes;
    private final StringBuilder problems = new StringBuilder();
    private int problemCount;

    public void countPublished(EventKind kind) {
        published[kind.ordinal()]++;
    }

    public void countBinding() {
        bindings++;
    }

    public void countSkipped(int vendorKind) {
        skippedByVendorKind.merge(vendorKind, 1L, Long::sum);
    }

    /** A record that had a known kind but impossible content (e.g. end before start). */
    public void invalid(String why) {
        invalidRecords++;
        problem(why);
    }

    /**
     * A record the vendor handed over before its work finished (a forced flush at stop returns
     * such records with timestamp 0): nothing to place on a timeline, and not malformed either.
     */
    public void incomplete() {
        incompleteRecords++;
    }

    /** Records handed over without timestamps because their work had not finished. */
    public long incompleteRecords() {
        return incompleteRecords;
    }

    /**
     * Bytes from a record the vendor had not yet written when it handed the buffer over, to the
     * buffer's end: its kind still reads 0 (every vendor's invalid kind; buffers are zeroed before
     * they are lent). Seen when a forced flush at a stop races a thread writing its launch's record;
     * the record's size is unknown, so the walk ends there. Not malformed, and not guessed at.
     */
    public void unwritten(long bytes) {
        unwrittenBytes += bytes;
    }

    /** Bytes left out because their record was not yet written when the buffer was handed over. */
    public long unwrittenBytes() {
        return unwrittenBytes;
    }

    /**
     * An annotation's attributes record (CUPTI's MARKER_DATA: colour, category, payload), read and
     * checked but not drawn: the trace has no field for them. Not a drop.
     */
    public void annotationAttributes() {
        annotationAttributes++;
    }

    /** Annotation attribute records read and not drawn. */
    public long annotationAttributesRead() {
        return annotationAttributes;
    }

    /** A kernel whose name the capture cannot resolve; it is kept under a placeholder name. */
    public void unnamedKernel() {
        unnamedKernels++;
    }

    /** Distinct kernels kept under a placeholder because their name was unknown. */
    public long unnamedKernels() {
        return unnamedKernels;
    }

    /** Bytes at the end of a buffer that could not be walked (unknown record kind, truncation). */
    public void undecodable(long bytes, String why) {
        undecodableBytes += bytes;
        problem(why);
    }

    private void problem(String why) {
        if (problemCount++ < 10) {
            problems.append(problems.length() == 0 ? "" : "; ").append(why);
        }
    }

    public long published(EventKind kind) {
        return published[kind.ordinal()];
    }

    public long publishedTotal() {
        long total = bindings;
        for (long n : published) {
            total += n;
        }
        return total;
    }

    public long bindings() {
        return bindings;
    }

    public Map<Integer, Long> skippedByVendorKind() {
        return skippedByVendorKind;
    }

    public long skippedTotal() {
        long total = 0;
        for (long n : skippedByVendorKind.values()) {
            total += n;
        }
        return total;
    }

    public long undecodableBytes() {
        return undecodableBytes;
    }

    public long invalidRecords() {
        return invalidRecords;
    }

    /** The first few problems, for the one-line report. */
    public String problems() {
        return problems.toString() + (problemCount > 10 ? " (+" + (problemCount - 10) + " more)" : "");
    }
}
