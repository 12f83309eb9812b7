package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.FltrbufFrames;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.model.UnifiedMemoryCounter;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TruthRecord;
import org.flagos.trace.vendors.activity.RecordWalk;
import org.junit.jupiter.api.Test;

/**
 * The unified-memory flyweight alone. Against the H200 managed-memory capture (3,495 records: HtoD and
 * DtoH transfers, CPU and GPU page faults) every field equals CUPTI's own decoding and the counter,
 * the flag's word and whether the record lasts follow CUDA 13.0's enums; the counters that capture does
 * not hold (DtoD, thrashing, throttling, remote map) and the invalid records are made byte by byte at
 * {@code CUpti_ActivityUnifiedMemoryCounter3}'s offsets, for the device rule of each.
 */
class CuptiUnifiedMemoryDecoderTest {
    private static final String MANAGED = "h200-managed/h200-managed";

    @Test
    void everyRecordOfTheManagedCaptureReadsAsCuptiDecodedIt() {
        List<JsonNode> truth = new ArrayList<>();
        for (JsonNode t : TruthRecord.read(Captures.truth(MANAGED))) {
            if (t.get("kind").asText().equals("unified_memory")) {
                truth.add(t);
            }
        }
        assertEquals(3_495, truth.size());
        CuptiRecordTimes times = new CuptiRecordTimes();
        CuptiUnifiedMemoryDecoder u = new CuptiUnifiedMemoryDecoder(CuptiRecordLayout.CUPTI_13_0, times);
        RecordWalk walk = new RecordWalk("CUPTI", CuptiRecordLayout.CUPTI_13_0::recordSize, "");
        DecodeStats stats = new DecodeStats();
        TraceRecord slot = new TraceRecord();
        Map<UnifiedMemoryCounter, Long> bytes = new EnumMap<>(UnifiedMemoryCounter.class);
        int i = 0;
        FltrbufFrames frames = new FltrbufFrames(CaptureBytes.load(Captures.capture(MANAGED)), MANAGED);
        while (frames.next()) {
            ByteBuffer buffer = walk.start(frames.payload(), stats);
            for (int pos = walk.next(); pos >= 0; pos = walk.next()) {
                if (walk.kind() != CuptiActivityKind.UNIFIED_MEMORY_COUNTER) {
                    continue;
                }
                JsonNode t = truth.get(i);
                String where = "unified memory record " + i++;
                u.wrap(buffer, pos);
                int kind = t.get("counterKind").asInt();
                assertEquals(kind, u.counterKind(), where);
                assertEquals(t.get("value").asLong(), u.value(), where);
                assertEquals(t.get("start").asLong(), u.rawStart(), where);
                assertEquals(t.get("end").asLong(), u.rawEnd(), where);
                assertEquals(t.get("address").asLong(), u.address(), where);
                assertEquals(t.get("srcId").asInt(), u.srcId(), where);
                assertEquals(t.get("dstId").asInt(), u.dstId(), where);
                assertEquals(t.get("processId").asInt(), u.processId(), where);
                int flags = t.get("flags").asInt();
                assertEquals(flags, u.flags(), where);
                assertNull(u.invalid(), where);

                UnifiedMemoryCounter counter = switch (kind) {
                    case 1 -> UnifiedMemoryCounter.BYTES_HTOD;
                    case 2 -> UnifiedMemoryCounter.BYTES_DTOH;
                    case 3 -> UnifiedMemoryCounter.CPU_PAGE_FAULT;
                    case 4 -> UnifiedMemoryCounter.GPU_PAGE_FAULT_GROUP;
                    default -> throw new AssertionError(where + ": the capture holds counters 1 to 4 only, not " + kind);
                };
                assertEquals(counter, u.counter(), where);
                // a CPU page fault has no end (CUPTI writes 0): it is an instant
                assertEquals(kind != 3, u.lasting(), where);
                if (kind == 3) {
                    assertEquals(0, u.rawEnd(), where);
                }
                String word = kind <= 2 ? List.of("unknown", "user", "coherence", "prefetch").get(flags)
                        : List.of("unknown", "read", "write").get(flags);
                assertEquals(word, u.flagWord(), where);
                assertEquals(0, u.deviceId(), where + ": one GPU, srcId and dstId 0");

                assertTrue(times.accept(u.rawStart(), u.lasting() ? u.rawEnd() : u.rawStart(), u.deviceId(),
                        "unified memory", stats), where);
                CuptiUnifiedMemoryDecoder.TRANSLATOR.translateTo(slot, i, u);
                assertEquals(RecordType.ACTIVITY, slot.type, where);
                assertEquals(EventKind.UNIFIED_MEMORY, slot.kind, where);
                assertFalse(slot.hasCorrelation(), where + ": the record has no correlation id");
                assertEquals(counter, slot.umCounter, where);
                assertEquals(t.get("value").asLong(), slot.umValue, where);
                assertEquals(t.get("address").asLong(), slot.address, where);
                assertEquals(t.get("processId").asInt(), slot.processId, where);
                assertEquals(word, slot.umFlag, where);
                assertEquals(counter.transfer(), slot.has(RecordField.BYTES), where + ": only a transfer's value is bytes here");
                assertEquals(counter.transfer() ? t.get("value").asLong() : 0, slot.bytes, where);
                if (counter.transfer()) {
                    bytes.merge(counter, slot.bytes, Long::sum);
                }
            }
        }
        assertEquals(truth.size(), i, "every record walked");
        // the capture's README: 138,412,032 bytes HtoD and 134,217,728 bytes DtoH
        assertEquals(138_412_032L, bytes.get(UnifiedMemoryCounter.BYTES_HTOD));
        assertEquals(134_217_728L, bytes.get(UnifiedMemoryCounter.BYTES_DTOH));
        assertEquals(0, stats.invalidRecords());
    }

    /** One 104-byte record: counterKind, value, address, srcId, dstId, flags. */
    private static ByteBuffer record(int counter, long value, int src, int dst, int flags) {
        ByteBuffer b = ByteBuffer.allocate(104).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, CuptiActivityKind.UNIFIED_MEMORY_COUNTER).putInt(4, counter).putLong(8, value)
                .putLong(16, 1_000).putLong(24, 2_000).putLong(32, 0x7f00_0000_0000L).putInt(40, src).putInt(44, dst)
                .putInt(52, 4242).putInt(56, flags);
        return b;
    }

    private static CuptiUnifiedMemoryDecoder read(ByteBuffer b) {
        return new CuptiUnifiedMemoryDecoder(CuptiRecordLayout.CUPTI_13_0, new CuptiRecordTimes()).wrap(b, 0);
    }

    @Test
    void eachCounterIsDrawnOnTheDeviceItsClassCommentNames() {
        assertEquals(2, read(record(1, 64, 0, 2, 1)).deviceId(), "HtoD: its destination");
        assertEquals(3, read(record(2, 64, 3, 0, 1)).deviceId(), "DtoH: its source");
        assertEquals(1, read(record(8, 64, 1, 2, 4)).deviceId(), "DtoD: its source");
        assertEquals(0, read(record(3, 0xdeadL, 5, 6, 1)).deviceId(), "a CPU page fault names no processor");
        assertEquals(4, read(record(4, 7, 4, 0, 2)).deviceId(), "GPU fault: its source");
        assertEquals(1, read(record(5, 64, 0b110, 0, 0)).deviceId(), "thrashing: the lowest device of its source mask");
        assertEquals(0, read(record(5, 64, 0, 0, 0)).deviceId(), "thrashing with an empty mask");
        assertEquals(1, read(record(6, 0, 1, 0, 0)).deviceId(), "throttling: its source");
        assertEquals(1, read(record(7, 4096, 0, 1, 3)).deviceId(), "remote map: its destination");
    }

    @Test
    void flagsAreWordsOfTheirCountersEnum() {
        assertEquals("eviction", read(record(8, 64, 1, 0, 4)).flagWord());
        assertEquals("access counters", read(record(1, 64, 0, 0, 5)).flagWord());
        assertEquals("unknown", read(record(1, 64, 0, 0, 6)).flagWord(), "past CUDA 13.0's migration causes");
        assertEquals("unknown", read(record(2, 64, 0, 0, -1)).flagWord());
        assertEquals("prefetch", read(record(4, 1, 0, 0, 4)).flagWord(), "a fault's access type");
        assertEquals("out of memory", read(record(7, 4096, 0, 1, 4)).flagWord(), "a remote map's cause");
        assertNull(read(record(5, 64, 1, 0, 2)).flagWord(), "thrashing has no flag word");
        assertNull(read(record(6, 0, 1, 0, 2)).flagWord(), "nor throttling");
    }

    @Test
    void onlyCudaThirteensCountersAndBytesBelowTwoToThe63AreDrawn() {
        assertEquals("unified memory record with counter kind 0", read(record(0, 1, 0, 0, 0)).invalid());
        assertEquals("unified memory record with counter kind 9", read(record(9, 1, 0, 0, 0)).invalid());
        assertEquals("unified memory record with counter kind 4294967295", read(record(-1, 1, 0, 0, 0)).invalid());
        assertEquals("unified memory record of 18446744073709551615 bytes (above 2^63)", read(record(1, -1L, 0, 0, 0)).invalid());
        assertEquals("unified memory record of 9223372036854775808 bytes (above 2^63)",
                read(record(7, Long.MIN_VALUE, 0, 0, 0)).invalid(), "a remote map's value is bytes too");
        assertNull(read(record(3, -1L, 0, 0, 0)).invalid(), "a CPU fault's value is an address, not bytes");
        assertNull(read(record(4, -1L, 0, 0, 0)).invalid(), "a GPU fault's value counts fault groups");
        assertNull(read(record(1, Long.MAX_VALUE, 0, 0, 0)).invalid());
        for (int kind = 1; kind <= 8; kind++) {
            CuptiUnifiedMemoryDecoder u = read(record(kind, 64, 0, 0, 0));
            assertNull(u.invalid(), "counter " + kind);
            assertEquals(kind == 1 || kind == 2 || kind == 4 || kind == 6 || kind == 8, u.lasting(), "counter " + kind);
        }
    }

    @Test
    void aRecordMustHoldTheFieldsItReads() {
        ByteBuffer whole = record(1, 64, 0, 0, 0);
        ByteBuffer cut = whole.duplicate().order(ByteOrder.LITTLE_ENDIAN).limit(103);
        assertThrows(IndexOutOfBoundsException.class, () -> read(cut));
        // a row that does not know the record's size still reads no field past the last one it reads
        CuptiUnifiedMemoryDecoder noSize = new CuptiUnifiedMemoryDecoder(CuptiRecordLayout.CUPTI_12_1, new CuptiRecordTimes());
        ByteBuffer fieldsOnly = whole.duplicate().order(ByteOrder.LITTLE_ENDIAN).limit(CuptiUnifiedMemoryDecoder.FIELDS_END);
        assertEquals(1, noSize.wrap(fieldsOnly, 0).counterKind());
        ByteBuffer short1 = whole.duplicate().order(ByteOrder.LITTLE_ENDIAN).limit(CuptiUnifiedMemoryDecoder.FIELDS_END - 1);
        assertThrows(IndexOutOfBoundsException.class, () -> noSize.wrap(short1, 0));
    }

    @Test
    void thePublishedSlotCarriesBytesOnlyForCountersWhoseValueIsBytes() {
        long sixGiB = 6L << 30;
        int[] kinds = {1, 2, 3, 4, 5, 6, 7, 8};
        boolean[] isBytes = {true, true, false, false, true, false, true, true};
        for (int i = 0; i < kinds.length; i++) {
            CuptiUnifiedMemoryDecoder u = read(record(kinds[i], sixGiB, 1, 1, 1));
            TraceRecord slot = new TraceRecord();
            CuptiUnifiedMemoryDecoder.TRANSLATOR.translateTo(slot, 0, u);
            assertEquals(isBytes[i], slot.has(RecordField.BYTES), "counter " + kinds[i]);
            assertEquals(isBytes[i] ? sixGiB : 0, slot.bytes, "counter " + kinds[i]);
            assertEquals(sixGiB, slot.umValue, "counter " + kinds[i] + ": the raw value is kept either way");
            assertEquals(1, slot.umSrcId);
            assertEquals(1, slot.umDstId);
            assertEquals(4242, slot.processId);
        }
    }
}
