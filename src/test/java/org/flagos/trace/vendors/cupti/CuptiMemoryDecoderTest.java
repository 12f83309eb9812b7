package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.MemoryKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.TraceRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The MEMORY2 flyweight ({@code CUpti_ActivityMemory4}) over every memory record of the H200 kinds
 * capture, field by field against CUPTI's own decoding, and its refusals: an operation neither
 * allocation nor release, a size past 2^63 (word for word), a record cut short.
 */
class CuptiMemoryDecoderTest {
    private static List<FixtureRecords.Record> memory() {
        return FixtureRecords.of("h200-kinds/h200-kinds", "memory2", CuptiActivityKind.MEMORY2);
    }

    private static CuptiMemoryDecoder decoder(CuptiRecordTimes times) {
        return new CuptiMemoryDecoder(CuptiRecordLayout.CUPTI_13_0, times);
    }

    @Test
    void everyMemoryRecordReadsAsCuptiDecodedIt() {
        List<FixtureRecords.Record> records = memory();
        CuptiRecordTimes times = new CuptiRecordTimes();
        CuptiMemoryDecoder m = decoder(times);
        DecodeStats stats = new DecodeStats();
        TraceRecord slot = new TraceRecord();
        int releases = 0;
        for (int i = 0; i < records.size(); i++) {
            JsonNode t = records.get(i).truth();
            String where = "memory record " + i;
            m.wrap(records.get(i).buffer(), records.get(i).offset());
            assertNull(m.invalid(), where);
            assertEquals(t.get("memoryOperationType").asInt(), m.operation(), where);
            assertEquals(t.get("memoryKind").asInt(), m.memoryKind(), where);
            assertEquals(t.get("correlation").asLong(), m.correlationId(), where);
            assertEquals(t.get("address").asLong(), m.address(), where);
            assertEquals(t.get("bytes").asLong(), m.bytes(), where);
            assertEquals(t.get("timestamp").asLong(), m.rawTimestamp(), where);
            assertEquals(t.get("processId").asInt(), m.processId(), where);
            assertEquals(t.get("device").asInt(), m.deviceId(), where);
            assertEquals(t.get("context").asInt(), m.contextId(), where);
            assertEquals(t.get("stream").asLong(), Integer.toUnsignedLong(m.streamId()), where);

            assertTrue(times.accept(m.rawTimestamp(), m.rawTimestamp(), m.deviceId(), "memory", stats), where);
            CuptiMemoryDecoder.TRANSLATOR.translateTo(slot, i, m);
            assertEquals(EventKind.MEMORY, slot.kind, where);
            assertEquals(t.get("timestamp").asLong(), slot.startNs, where);
            assertEquals(slot.startNs, slot.endNs, where + ": an instant");
            assertEquals(t.get("correlation").asLong(), slot.correlation(), where);
            assertEquals(t.get("address").asLong(), slot.address, where);
            assertEquals(t.get("bytes").asLong(), slot.bytes, where);
            assertEquals(t.get("processId").asInt(), slot.processId, where);
            assertEquals(t.get("memoryOperationType").asInt() == CuptiMemoryDecoder.RELEASE, slot.memoryRelease, where);
            assertEquals(MemoryKind.values()[t.get("memoryKind").asInt()], slot.memoryKind, where);
            assertTrue(slot.has(RecordField.CONTEXT) && slot.has(RecordField.BYTES), where);
            if (slot.memoryRelease) {
                releases++;
            }
        }
        assertTrue(releases > 0 && releases < records.size(), "the capture allocates and releases: " + releases);
    }

    /** The first memory record of the capture, copied alone into a buffer of its own. */
    private static ByteBuffer firstRecord() {
        FixtureRecords.Record r = memory().get(0);
        ByteBuffer copy = ByteBuffer.allocate(128).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 128; i++) {
            copy.put(i, r.buffer().get(r.offset() + i));
        }
        return copy;
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 3, -1})
    void anOperationNeitherAllocationNorReleaseIsRefused(int operation) {
        ByteBuffer b = firstRecord().putInt(4, operation);
        assertEquals("memory record with operation type " + Integer.toUnsignedString(operation)
                + " (neither allocation nor release)", decoder(new CuptiRecordTimes()).wrap(b, 0).invalid());
    }

    @Test
    void aSizePast2To63IsRefused() {
        ByteBuffer b = firstRecord().putLong(24, -2L);
        assertEquals("memory record of 18446744073709551614 bytes (above 2^63)", decoder(new CuptiRecordTimes()).wrap(b, 0).invalid());
        b.putLong(24, Long.MAX_VALUE);
        assertNull(decoder(new CuptiRecordTimes()).wrap(b, 0).invalid(), "2^63 - 1 bytes is a size, if a large one");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 64, 127})
    void aRecordCutShortIsRefusedBeforeAnyFieldIsRead(int kept) {
        ByteBuffer b = firstRecord().limit(kept);
        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class,
                () -> decoder(new CuptiRecordTimes()).wrap(b, 0));
        assertEquals("CUpti_ActivityMemory4 of 128 bytes at offset 0 runs past the buffer's valid size " + kept, e.getMessage());
    }
}
