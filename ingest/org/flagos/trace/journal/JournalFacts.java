package org.flagos.trace.journal;

import java.util.List;
import java.util.Map;
import org.flagos.trace.model.ClockAnchor;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.DeviceProperties;

/**
 * What a scan of a journal found, before any record is decoded.
 *
 * @param traceName   the session's trace name
 * @param source      the session's source
 * @param metadata    the session's extra trace keys
 * @param startNs     the capture window's start, or {@link JournalSchema#NO_TIME}
 * @param stopNs      the stop marker's end time, or {@link JournalSchema#NO_TIME} when the journal
 *                    has none (the recorder is still running, or was killed)
 * @param lastNs      the latest time the journal knows of: the stop marker's, else the latest op
 *                    end or live buffer arrival; {@link JournalSchema#NO_TIME} when none
 * @param devices     device properties (the last value per id)
 * @param clock       the last clock mapping, or the identity
 * @param names       every name table entry (kernel name pointers and API name handles)
 * @param vendor      the vendor id of the first buffer, or -1 when there is none
 * @param firstSeq    the sequence number of the first retained document (above 0 when a flight
 *                    recorder deleted older cycles)
 * @param documents   documents read, up to the end or the damage
 * @param buffers     whole vendor buffers
 * @param ops         host ops
 * @param damage      why reading stopped before the end, or null
 * @param ended       true when the journal holds its end (the {@code stop} document a writer
 *                    appends when stopped or closed); false when the capture was interrupted (the
 *                    recorder was killed, or is still writing)
 * @param invalidOps  op documents skipped because their content cannot be an op (no name, an end
 *                    before the start, a negative time or External id)
 * @param firstInvalidOp which document was the first of those and why, or null when none
 * @param anchors     clock anchors journaled after the start (the stop anchor; the start one is in
 *                    {@code metadata}), at most {@code JournalSchema.MAX_ANCHORS}
 * @param marks       marks (a replayed capture's {@code .marks.jsonl}; schema 2)
 */
public record JournalFacts(String traceName, String source, Map<String, String> metadata, long startNs, long stopNs,
                           long lastNs, List<DeviceProperties> devices, DeviceClockMapping clock, Map<Long, String> names,
                           int vendor, long firstSeq, long documents, long buffers, long ops, String damage,
                           boolean ended, long invalidOps, String firstInvalidOp, List<ClockAnchor> anchors,
                           long marks) {
    /** True when the stop marker gave the capture window's end time. */
    public boolean stopped() {
        return stopNs != JournalSchema.NO_TIME;
    }
}
