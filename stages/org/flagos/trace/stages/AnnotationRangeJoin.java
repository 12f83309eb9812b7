package org.flagos.trace.stages;

import com.lmax.disruptor.EventHandler;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;

/**
 * The stage that joins records to annotation ranges (NVTX through the vendor's MARKER records), after
 * the capture window and before the walk: the one place a record takes a range's External id, so the
 * walk only reads them.
 *
 * <ul>
 * <li>A range's start opens it and its end closes it ({@link MarkerRanges} pairs them). A paired end
 *     becomes the whole range: its start time, thread, name and domain are the start's, its end the
 *     later of the two times, and its External id the range's ({@link MarkerRanges#externalId}, set with
 *     {@link TraceRecord#rangeExternalId}); the walk draws it as a host op of its own. An end that pairs
 *     with nothing is left as it came and only counted.</li>
 * <li>An API call outside every host op (no External id, a correlation) is claimed by the innermost
 *     range open on its thread when it arrives here: a parked one when its slot arrives (the join holds
 *     it back, since such a call never gets a binding), an unparked one when it is walked. It then takes
 *     that range's External id, as do the device records it launched, as torch gives a launch the id of
 *     the innermost range around it. A synchronization takes it too but adds no device time to the range,
 *     so it is not counted as attributed.</li>
 * </ul>
 *
 * <p>Slots are visited in the walk's order (the slot unless parked, then what it releases; records the
 * window dropped skipped), so a range is open here exactly when the walk reaches the records inside it.
 * The counts (pairing failures, calls and device records attributed) are read once, at the end of the
 * capture, by the walk's accounting. Allocates nothing per record.
 */
public final class AnnotationRangeJoin implements EventHandler<TraceRecord> {
    private final MarkerRanges ranges;

    /** @param horizon calls remembered per generation (two generations): the join's reorder horizon */
    public AnnotationRangeJoin(int horizon) {
        this.ranges = new MarkerRanges(horizon);
    }

    @Override
    public void onEvent(TraceRecord slot, long sequence, boolean endOfBatch) {
        if (!slot.parked) {
            join(slot);
        } else if (slot.type == RecordType.ACTIVITY && (slot.kind == EventKind.RUNTIME || slot.kind == EventKind.DRIVER)) {
            ranges.call(slot); // a call without a binding yet, arriving: the range open now claims it
        }
        for (int i = 0; i < slot.releasedCount(); i++) {
            join(slot.released(i));
        }
        if (slot.type == RecordType.END_OF_CAPTURE) {
            ranges.finish();
        }
    }

    /** One record the walk will see: a marker pairs, a record outside every op may take a range's id. */
    private void join(TraceRecord r) {
        if (r.outsideWindow || r.type != RecordType.ACTIVITY) {
            return;
        }
        EventKind kind = r.kind;
        if (kind == EventKind.MARKER) {
            marker(r);
        } else if (kind == EventKind.UNIFIED_MEMORY || kind == EventKind.OVERHEAD || kind.isInstant()
                || r.hasExternalId() || !r.hasCorrelation()) {
            return; // no launch of its own in a range, or an op's id already
        } else if (kind.isDevice()) {
            long range = ranges.rangeOf(r.correlation());
            if (range != MarkerRanges.UNBOUND) {
                r.rangeExternalId(range);
                if (kind != EventKind.SYNC) { // a synchronization is the host waiting: no device time for the range
                    ranges.deviceRecordAttributed();
                }
            }
        } else {
            ranges.call(r);
            long range = ranges.rangeOf(r.correlation());
            if (range != MarkerRanges.UNBOUND) {
                r.rangeExternalId(range);
            }
        }
    }

    private void marker(TraceRecord r) {
        switch (r.markerPhase) {
            case START:
                ranges.start(r);
                break;
            case END:
                if (ranges.end(r)) {
                    r.endNs = Math.max(r.startNs, ranges.closedStartNs);
                    r.startNs = ranges.closedStartNs;
                    r.threadId = ranges.closedThread;
                    r.nameId = ranges.closedNameId;
                    r.domainNameId = ranges.closedDomainId;
                    r.rangeExternalId(MarkerRanges.externalId(r.markerId));
                }
                break;
            default: // a mark: drawn by the walk as it is
        }
    }

    /** Range ends whose start never came (before the window, or past the open capacity). */
    long endsWithoutStart() {
        return ranges.endsWithoutStart();
    }

    /** Second starts of a range already open (the first is kept). */
    long duplicateStarts() {
        return ranges.duplicateStarts();
    }

    /** Starts past the open capacity, forgotten. */
    long openAtCapacity() {
        return ranges.openAtCapacity();
    }

    /** Ranges still open at the end of the capture. */
    long neverClosed() {
        return ranges.neverClosed();
    }

    /** API calls outside every op that an open range enclosed. */
    long callsAttributed() {
        return ranges.callsAttributed();
    }

    /** Device records whose time went to a range. */
    long deviceRecordsAttributed() {
        return ranges.deviceRecordsAttributed();
    }
}
