package org.flagos.trace.stages;

import org.agrona.collections.Long2LongHashMap;
import org.flagos.trace.model.GenerationalMap;
import org.flagos.trace.model.TraceRecord;

/**
 * The annotation ranges of {@link AnnotationRangeJoin} (NVTX through the vendor's MARKER records): pairs each range's
 * start and end by the vendor's marker id, and says which open range encloses an API call made
 * outside every host op, so the device work that call launched counts for the range.
 *
 * <p>A range's start and end share the vendor's id, push/pop ranges included (CUPTI numbers each
 * push). A range closes into a host range with an External id of its own, {@link #externalId}: the
 * marker id in a space no host op uses ({@link #EXTERNAL_BASE} and up; host ops number theirs from
 * 0), so the host-op ledger settles it, nests it and sums its device time like an op.
 *
 * <p>What is held is bounded: at most {@link #OPEN_CAPACITY} open ranges (a start beyond them is
 * counted and forgotten, {@link #openAtCapacity()}), and the correlation of each call an open range
 * enclosed for two generations of a horizon of such calls each (a device record arriving after that finds
 * no range). What cannot be paired is counted, never drawn: an end whose start never
 * came ({@link #endsWithoutStart()}: it lay before the window, or past the open capacity), a
 * second start of an open id ({@link #duplicateStarts()}: the first is kept), a start never closed
 * by the end of the capture ({@link #neverClosed()}).
 *
 * <p>Order: CUPTI writes a thread's markers and API records into that thread's buffer as they
 * happen, so a range's start arrives before the calls inside it and its end after them. A call is
 * therefore claimed when its slot arrives at the stage, parked or not: a call outside every op has
 * no binding, so the join parks it and releases it a horizon later (or at the end), long after its
 * range closed. Its device records, parked the same way, arrive after it and find the claim.
 * A start arriving after a call it encloses (a later buffer) does not claim that call.
 */
final class MarkerRanges {
    /**
     * The first External id of the ranges' space, 2^52: clear of host ops' ids (numbered from 0),
     * and every range's id (plus a 32-bit marker id) stays below 2^53, so a viewer that reads JSON
     * numbers as doubles still tells two ranges apart.
     */
    static final long EXTERNAL_BASE = 1L << 52;
    /** Ranges open at once, all threads together. */
    static final int OPEN_CAPACITY = 4096;
    private static final long NONE = -1;
    /** What {@link #rangeOf} returns for a call no range claimed: External ids are never negative. */
    static final long UNBOUND = Long.MIN_VALUE;

    /** Open ranges, packed in {@code [0, open)}; {@link #slotOf} finds one by marker id. */
    private final long[] ids = new long[OPEN_CAPACITY];
    private final long[] starts = new long[OPEN_CAPACITY];
    private final long[] threads = new long[OPEN_CAPACITY];
    private final int[] nameIds = new int[OPEN_CAPACITY];
    private final int[] domainIds = new int[OPEN_CAPACITY];
    private final Long2LongHashMap slotOf = new Long2LongHashMap(OPEN_CAPACITY * 2, 0.65f, NONE, true);
    private int open;
    /** Correlation of a call to the External id of the range that claimed it, for a horizon of later calls; first claim wins. */
    private final GenerationalMap calls;

    /** The range {@link #end} closed last: valid until the next call. */
    long closedStartNs;
    long closedThread;
    int closedNameId;
    int closedDomainId;

    private long endsWithoutStart;
    private long duplicateStarts;
    private long openAtCapacity;
    private long neverClosed;
    private long callsAttributed;
    private long deviceRecordsAttributed;

    /** @param horizon calls remembered per generation (two generations): the join's reorder horizon */
    MarkerRanges(int horizon) {
        this.calls = new GenerationalMap(horizon, UNBOUND);
    }

    /** The External id of the range with the vendor's marker id {@code markerId}. */
    static long externalId(long markerId) {
        return EXTERNAL_BASE | (markerId & 0xFFFF_FFFFL);
    }

    /** A range opens. */
    void start(TraceRecord r) {
        if (slotOf.get(r.markerId) != NONE) {
            duplicateStarts++;
            return;
        }
        if (open == OPEN_CAPACITY) {
            openAtCapacity++;
            return;
        }
        int s = open++;
        ids[s] = r.markerId;
        starts[s] = r.startNs;
        threads[s] = r.threadId;
        nameIds[s] = r.nameId;
        domainIds[s] = r.domainNameId;
        slotOf.put(r.markerId, s);
    }

    /**
     * A range closes: true when its start was open, and then {@code closed*} describe it (its
     * External id is {@link #externalId} of the record's marker id); false when counted unpaired.
     */
    boolean end(TraceRecord r) {
        long found = slotOf.remove(r.markerId);
        if (found == NONE) {
            endsWithoutStart++;
            return false;
        }
        int s = (int) found;
        closedStartNs = starts[s];
        closedThread = threads[s];
        closedNameId = nameIds[s];
        closedDomainId = domainIds[s];
        int last = --open;
        if (s != last) {
            ids[s] = ids[last];
            starts[s] = starts[last];
            threads[s] = threads[last];
            nameIds[s] = nameIds[last];
            domainIds[s] = domainIds[last];
            slotOf.put(ids[s], s);
        }
        return true;
    }

    /**
     * An API call that no host op encloses (yet: a parked call has no binding), as it arrives: when an open range on its thread started at or before it
     * (the latest such one, the innermost), its correlation is remembered for that range.
     */
    void call(TraceRecord api) {
        if (open == 0 || !api.hasCorrelation()) {
            return;
        }
        int inner = -1;
        for (int s = 0; s < open; s++) {
            if (threads[s] == api.threadId && starts[s] <= api.startNs && (inner < 0 || starts[s] >= starts[inner])) {
                inner = s;
            }
        }
        if (inner >= 0 && calls.putIfAbsent(api.correlation(), externalId(ids[inner]))) {
            callsAttributed++;
        }
    }

    /**
     * The External id of the range that claimed the call with this correlation (the call itself, or
     * the device work it launched), or {@link #UNBOUND}.
     */
    long rangeOf(long correlation) {
        return callsAttributed == 0 ? UNBOUND : calls.get(correlation); // most captures: no lookup
    }

    /** A device record's time went to a range. */
    void deviceRecordAttributed() {
        deviceRecordsAttributed++;
    }

    /** The end of the capture: ranges still open are counted, not drawn. */
    void finish() {
        neverClosed += open;
        open = 0;
        slotOf.clear();
    }

    long endsWithoutStart() {
        return endsWithoutStart;
    }

    long duplicateStarts() {
        return duplicateStarts;
    }

    long openAtCapacity() {
        return openAtCapacity;
    }

    long neverClosed() {
        return neverClosed;
    }

    /** API calls outside every op that an open range enclosed. */
    long callsAttributed() {
        return callsAttributed;
    }

    /** Device records whose time went to a range. */
    long deviceRecordsAttributed() {
        return deviceRecordsAttributed;
    }
}
