package org.flagos.trace.model;

/**
 * The copies a stage keeps of the records it parks, reused instead of allocated once no stage can
 * still read them. A copy released on the slot of ring sequence {@code s} is read by the later
 * stages while they process {@code s}; the stage that released it reaches sequence
 * {@code s + ringSize} only after the last stage has finished {@code s} (the producer cannot reuse
 * a slot before then), so from {@link #REUSE_DISTANCE} sequences on the copy is free again.
 *
 * <p>Copies are allocated only while the stage holds more than ever before; in steady state none
 * is. The copies alive are those held plus those released within the last {@link #REUSE_DISTANCE}
 * sequences.
 */
public final class RecordCopies {
    /** Sequences after its release when a copy is reused; no ring may have more slots. */
    public static final int REUSE_DISTANCE = 1 << 16;

    private TraceRecord[] cooling = new TraceRecord[64];
    private long[] releasedAt = new long[64];
    private long oldest;
    private long next;
    private long allocated;

    /** A copy of {@code record}, taken while the holding stage processes ring sequence {@code sequence}. */
    public TraceRecord copyOf(TraceRecord record, long sequence) {
        TraceRecord copy;
        if (oldest < next && releasedAt[at(oldest)] + REUSE_DISTANCE <= sequence) {
            int at = at(oldest++);
            copy = cooling[at];
            cooling[at] = null;
        } else {
            copy = new TraceRecord(); // only while the stage holds more copies than ever before
            allocated++;
        }
        copy.copyFrom(record);
        return copy;
    }

    /** Notes that {@code copy} was released on the slot of ring sequence {@code sequence}. */
    public void released(TraceRecord copy, long sequence) {
        if (next - oldest == cooling.length) {
            grow();
        }
        int at = at(next++);
        cooling[at] = copy;
        releasedAt[at] = sequence;
    }

    /** Copies allocated so far: the most the stage ever held plus those cooling down at the time. */
    public long allocated() {
        return allocated;
    }

    private int at(long index) {
        return (int) (index & (cooling.length - 1));
    }

    private void grow() {
        int n = cooling.length;
        TraceRecord[] copies = new TraceRecord[n * 2];
        long[] at = new long[n * 2];
        for (long s = oldest; s < next; s++) {
            copies[(int) (s & (n * 2 - 1))] = cooling[(int) (s & (n - 1))];
            at[(int) (s & (n * 2 - 1))] = releasedAt[(int) (s & (n - 1))];
        }
        cooling = copies;
        releasedAt = at;
    }
}
