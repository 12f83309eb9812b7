package org.flagos.trace.model;

import org.agrona.collections.Long2LongHashMap;

/**
 * The records one stage has parked, in parking order, grouped by a key (a correlation id): what the
 * join and MSPTI's remap share. Each parked record is a copy ({@link RecordCopies}) kept in a ring
 * indexed by its parking number, with the arrival count it was parked at and a link to the next
 * older record of its key; a key maps to its newest record. Releasing attaches the copy to a carrier
 * slot ({@link TraceRecord#release}) and frees its place. Not thread-safe: one stage owns it.
 */
public final class ParkedRecords {
    /** No parking number: the end of a key's chain, or a key with nothing parked. */
    public static final long NONE = -1;

    private final RecordCopies copies = new RecordCopies();
    private final Long2LongHashMap newest = new Long2LongHashMap(256, 0.65f, NONE, true);
    private TraceRecord[] parked = new TraceRecord[256];
    private long[] parkedAt = new long[256];
    private long[] older = new long[256];
    private long oldest;
    private long next;
    private int live;
    private int most;

    /** Parks a copy of {@code record} under {@code key}, at arrival {@code arrival}, on ring sequence {@code sequence}. */
    public void park(TraceRecord record, long key, long arrival, long sequence) {
        if (next - oldest == parked.length) {
            grow();
        }
        long number = next++;
        int at = at(number);
        parked[at] = copies.copyOf(record, sequence);
        parkedAt[at] = arrival;
        older[at] = newest.put(key, number);
        live++;
        most = Math.max(most, live);
    }

    /**
     * The oldest record still parked, when it was parked more than {@code horizon} arrivals before
     * {@code arrivals}; null when none is that old.
     */
    public TraceRecord overdue(long arrivals, int horizon) {
        for (; oldest < next; oldest++) {
            int at = at(oldest);
            if (parked[at] != null) {
                return arrivals - parkedAt[at] > horizon ? parked[at] : null;
            }
        }
        return null;
    }

    /** Detaches the chain of {@code key}: its newest parking number, or {@link #NONE}. */
    public long takeChain(long key) {
        return newest.remove(key);
    }

    /** The newest parking number of {@code key}'s chain, left in place; {@link #NONE} when none. */
    public long newest(long key) {
        return newest.get(key);
    }

    /** True when records are parked under {@code key} and their chain was not taken. */
    public boolean hasChain(long key) {
        return newest.containsKey(key);
    }

    /** The record parked as {@code number}; null once released. */
    public TraceRecord record(long number) {
        return parked[at(number)];
    }

    /** The next older parking number of the same key, or {@link #NONE}. */
    public long older(long number) {
        return older[at(number)];
    }

    /** The arrival count at which {@code number} was parked. */
    public long parkedAt(long number) {
        return parkedAt[at(number)];
    }

    /** The oldest parking number that may still be parked. */
    public long oldest() {
        return oldest;
    }

    /** One past the newest parking number. */
    public long end() {
        return next;
    }

    /** Attaches record {@code number} to {@code carrier}, on ring sequence {@code sequence}, and frees its place. */
    public void release(long number, TraceRecord carrier, long sequence) {
        int at = at(number);
        TraceRecord record = parked[at];
        parked[at] = null;
        live--;
        carrier.release(record);
        copies.released(record, sequence);
    }

    /** Forgets every chain and parking place; call once every record was released. */
    public void clear() {
        newest.clear();
        oldest = next;
    }

    /** Records parked now. */
    public int size() {
        return live;
    }

    /** The most records parked at once. */
    public int most() {
        return most;
    }

    private int at(long number) {
        return (int) (number & (parked.length - 1));
    }

    /** Doubles the ring; it never holds more than its owner's horizon of records. */
    private void grow() {
        int n = parked.length;
        TraceRecord[] records = new TraceRecord[n * 2];
        long[] when = new long[n * 2];
        long[] links = new long[n * 2];
        for (long s = oldest; s < next; s++) {
            int from = (int) (s & (n - 1));
            int to = (int) (s & (n * 2 - 1));
            records[to] = parked[from];
            when[to] = parkedAt[from];
            links[to] = older[from];
        }
        parked = records;
        parkedAt = when;
        older = links;
    }
}
