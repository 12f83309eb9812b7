package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.lmax.disruptor.EventTranslatorOneArg;
import java.util.Locale;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.TraceRecord;

/**
 * The check a memcpy's and a memset's own test share: the fields every {@link CuptiTransferRecord} reads
 * (times, bytes, device, context, stream), the record's correlation id, and the slot its translator fills
 * (kind, accepted times, duration, those fields, the context and bytes bits, the graph ids when CUPTI's
 * decoding has a graph id), each against the truth line CUPTI's own decoding wrote for the record.
 * Each test then checks its record's own fields (copy kinds; value and memory kind) on the slot returned.
 */
final class TransferTruth {
    private TransferTruth() {
    }

    /**
     * {@code record}, wrapped at {@code r}, against {@code r}'s truth line; the slot {@code translator}
     * filled after {@code times} accepted the record's times, checked the same way.
     *
     * @param correlationId the record's correlation id as its view reads it (it sits outside the shared fields)
     */
    static <R extends CuptiTransferRecord> TraceRecord check(String where, FixtureRecords.Record r, R record,
            long correlationId, CuptiRecordTimes times, EventKind kind, EventTranslatorOneArg<TraceRecord, R> translator) {
        JsonNode t = r.truth();
        assertEquals(t.get("start").asLong(), record.rawStart(), where);
        assertEquals(t.get("end").asLong(), record.rawEnd(), where);
        assertEquals(t.get("bytes").asLong(), record.bytes(), where);
        assertEquals(t.get("correlation").asLong(), correlationId, where);
        assertEquals(t.get("device").asInt(), record.deviceId(), where);
        assertEquals(t.get("context").asInt(), record.contextId(), where);
        assertEquals(t.get("stream").asInt(), record.streamId(), where);

        assertTrue(times.accept(record.rawStart(), record.rawEnd(), record.deviceId(), kind.name().toLowerCase(Locale.ROOT),
                new DecodeStats()), where);
        TraceRecord slot = new TraceRecord();
        translator.translateTo(slot, 0, record);
        assertEquals(kind, slot.kind, where);
        assertEquals(times.startNs(), slot.startNs, where);
        assertEquals(times.endNs(), slot.endNs, where);
        assertEquals(t.get("end").asLong() - t.get("start").asLong(), slot.endNs - slot.startNs, where + ": duration kept");
        assertEquals(t.get("bytes").asLong(), slot.bytes, where);
        assertEquals(t.get("device").asInt(), slot.device, where);
        assertEquals(t.get("context").asInt(), slot.context, where);
        assertEquals(t.get("stream").asInt(), slot.stream, where);
        assertEquals(t.get("correlation").asLong(), slot.correlation(), where);
        assertTrue(slot.has(RecordField.CONTEXT) && slot.has(RecordField.BYTES), where);
        boolean graph = t.get("graphId").asLong() != 0;
        assertEquals(graph, slot.has(RecordField.GRAPH), where);
        if (graph) {
            assertEquals(t.get("graphId").asLong(), slot.graphId, where);
            assertEquals(t.get("graphNodeId").asLong(), slot.graphNodeId, where);
        }
        return slot;
    }
}
