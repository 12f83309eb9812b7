package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.SyncKind;
import org.flagos.trace.model.TraceRecord;
import org.junit.jupiter.api.Test;

/**
 * The synchronization flyweight ({@code CUpti_ActivitySynchronization2}) against CUPTI's own decoding
 * of the 190 synchronization records of the H200 kinds capture; the kind's name is the one torch's
 * trace of the same workload writes ({@code cuda_sync} "Event Sync", ...).
 */
class CuptiSynchronizationDecoderTest {
    private static final SyncKind[] CUPTI_TYPES = {SyncKind.UNKNOWN, SyncKind.EVENT, SyncKind.STREAM_WAIT_EVENT,
        SyncKind.STREAM, SyncKind.CONTEXT};

    @Test
    void everySynchronizationReadsAsCuptiDecodedIt() {
        CuptiRecordTimes times = new CuptiRecordTimes();
        CuptiSynchronizationDecoder s = new CuptiSynchronizationDecoder(CuptiRecordLayout.CUPTI_13_0, times);
        TraceRecord slot = new TraceRecord();
        Map<SyncKind, Integer> kinds = new EnumMap<>(SyncKind.class);
        List<FixtureRecords.Record> records = FixtureRecords.of("h200-kinds/h200-kinds", "synchronization",
                CuptiActivityKind.SYNCHRONIZATION);
        for (FixtureRecords.Record r : records) {
            JsonNode t = r.truth();
            String where = "sync correlation " + t.get("correlation");
            s.wrap(r.buffer(), r.offset());
            SyncKind kind = CUPTI_TYPES[t.get("type").asInt()];
            assertEquals(kind, s.syncKind(), where);
            assertEquals(t.get("start").asLong(), s.rawStart(), where);
            assertEquals(t.get("end").asLong(), s.rawEnd(), where);
            assertEquals(t.get("correlation").asLong(), s.correlationId(), where);
            assertEquals(t.get("context").asInt(), s.contextId(), where);
            assertEquals(t.get("stream").asInt(), s.streamId(), where);
            times.accept(s.rawStart(), s.rawEnd(), 0, "synchronization", new DecodeStats());
            s.device = 3;
            CuptiSynchronizationDecoder.TRANSLATOR.translateTo(slot, 0, s);
            assertEquals(EventKind.SYNC, slot.kind, where);
            assertEquals(kind, slot.syncKind, where);
            assertEquals(t.get("cudaEventId").asLong(), slot.syncEventId, where + ": unsigned 32 bits");
            assertEquals(3, slot.device, where + ": the device the decoder found for the context");
            assertEquals(t.get("stream").asInt(), slot.stream, where);
            assertEquals(t.get("correlation").asLong(), slot.correlation(), where);
            kinds.merge(kind, 1, Integer::sum);
        }
        // what the capture holds (its truth): 180 event, 1 stream-wait-event, 4 stream, 5 context syncs
        assertEquals(Map.of(SyncKind.EVENT, 180, SyncKind.STREAM_WAIT_EVENT, 1, SyncKind.STREAM, 4, SyncKind.CONTEXT, 5), kinds);
        // the names torch's trace of the same workload gives these kinds (its cuda_sync events)
        assertEquals(List.of("Event Sync", "Stream Wait Event", "Stream Sync", "Context Sync"),
                List.of(SyncKind.EVENT.label(), SyncKind.STREAM_WAIT_EVENT.label(), SyncKind.STREAM.label(), SyncKind.CONTEXT.label()));
    }

    @Test
    void aTypeCuda13DoesNotDefineIsUnknownAndARecordMustHoldItsFields() {
        ByteBuffer b = ByteBuffer.allocate(56).order(ByteOrder.LITTLE_ENDIAN);
        CuptiSynchronizationDecoder s = new CuptiSynchronizationDecoder(CuptiRecordLayout.CUPTI_13_0, new CuptiRecordTimes());
        for (int type : new int[] {0, 5, 99, -1}) {
            b.putInt(4, type);
            assertEquals(SyncKind.UNKNOWN, s.wrap(b, 0).syncKind(), "type " + type);
        }
        b.putInt(4, 4);
        assertEquals(SyncKind.CONTEXT, s.wrap(b, 0).syncKind());
        assertThrows(IndexOutOfBoundsException.class, () -> s.wrap(b.duplicate().order(ByteOrder.LITTLE_ENDIAN).limit(55), 0));
        // CUPTI 12.1's 40-byte record holds every field read
        CuptiSynchronizationDecoder v12 = new CuptiSynchronizationDecoder(CuptiRecordLayout.CUPTI_12_1, new CuptiRecordTimes());
        assertEquals(SyncKind.CONTEXT, v12.wrap(b.duplicate().order(ByteOrder.LITTLE_ENDIAN).limit(40), 0).syncKind());
    }
}
