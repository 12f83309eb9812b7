package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.testing.CollectingSink;
import org.junit.jupiter.api.Test;

/**
 * The binding flyweight over every external-correlation record of the H200 kinds capture against
 * CUPTI's own decoding, and its rules: only flagtrace's external kind binds (another tool's is
 * skipped under its kind), an id past 2^63 is invalid, MSPTI's 64-bit correlation is read whole and
 * CUPTI's is cut to its 32 bits, a cut record is refused, and {@link
 * CuptiExternalCorrelationDecoder#write} writes what the decoder reads.
 */
class CuptiExternalCorrelationDecoderTest {
    private static final int KIND = CuptiActivityKind.EXTERNAL_CORRELATION;

    @Test
    void everyBindingOfTheKindsCaptureReadsAsCuptiDecodedIt() {
        List<FixtureRecords.Record> records = FixtureRecords.of("h200-kinds/h200-kinds", "external_correlation", KIND);
        CuptiExternalCorrelationDecoder ext = new CuptiExternalCorrelationDecoder();
        CollectingSink sink = new CollectingSink();
        DecodeStats stats = new DecodeStats();
        for (FixtureRecords.Record r : records) {
            ext.wrap(r.buffer(), r.offset());
            assertEquals(r.truth().get("externalKind").asInt(), ext.externalKind());
            assertEquals(r.truth().get("externalId").asLong(), ext.externalId());
            assertEquals(r.truth().get("correlation").asLong(), ext.correlationId());
            ext.publish(KIND, sink, stats);
        }
        assertEquals(records.size(), stats.bindings());
        for (int i = 0; i < records.size(); i++) {
            JsonNode t = records.get(i).truth();
            TraceRecord b = sink.records.get(i);
            assertEquals(RecordType.CORRELATION_BINDING, b.type);
            assertEquals(t.get("correlation").asLong(), b.correlation());
            assertEquals(t.get("externalId").asLong(), b.externalId());
        }
    }

    private static ByteBuffer record(int externalKind, long externalId, long correlation64) {
        ByteBuffer b = ByteBuffer.allocate(CuptiExternalCorrelationDecoder.SIZE).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, KIND).putInt(4, externalKind).putLong(8, externalId).putLong(16, correlation64);
        return b;
    }

    @Test
    void anotherToolsExternalKindIsSkippedUnderTheRecordsKind() {
        DecodeStats stats = new DecodeStats();
        CollectingSink sink = new CollectingSink();
        new CuptiExternalCorrelationDecoder().wrap(record(4 /* CUSTOM1 */, 9, 1), 0).publish(KIND, sink, stats);
        new CuptiExternalCorrelationDecoder().wrap(record(1 /* OPENACC */, 9, 2), 0).publish(KIND, sink, stats);
        assertEquals(Map.of(KIND, 2L), stats.skippedByVendorKind());
        assertEquals(0, sink.records.size());
    }

    @Test
    void anIdPast2To63IsInvalidNamingTheCorrelation() {
        DecodeStats stats = new DecodeStats();
        CollectingSink sink = new CollectingSink();
        new CuptiExternalCorrelationDecoder().wrap(record(CuptiExternalCorrelationDecoder.CUSTOM0, -1L, 4_000_000_000L), 0)
                .publish(KIND, sink, stats);
        assertEquals(0, sink.records.size());
        assertEquals(1, stats.invalidRecords());
        assertEquals("External id above 2^63 in correlation record 4000000000", stats.problems());
        new CuptiExternalCorrelationDecoder().wrap(record(CuptiExternalCorrelationDecoder.CUSTOM0, Long.MAX_VALUE, 5), 0)
                .publish(KIND, sink, stats);
        assertEquals(Long.MAX_VALUE, sink.records.get(0).externalId(), "2^63 - 1 binds");
    }

    @Test
    void cuptisCorrelationIs32BitsMsptisIs64() {
        long wide = (7L << 32) | 5;
        ByteBuffer b = record(CuptiExternalCorrelationDecoder.CUSTOM0, 1, wide);
        assertEquals(5, new CuptiExternalCorrelationDecoder().wrap(b, 0).correlationId(), "CUPTI's reserved half is not read");
        assertEquals(wide, CuptiExternalCorrelationDecoder.wideCorrelation("msptiActivityExternalCorrelation", 2)
                .wrap(b, 0).correlationId());
    }

    @Test
    void aWideVendorBindsItsOwnNumberForFlagtracesKind() {
        CuptiExternalCorrelationDecoder mspti = CuptiExternalCorrelationDecoder.wideCorrelation("msptiActivityExternalCorrelation", 2);
        DecodeStats stats = new DecodeStats();
        CollectingSink sink = new CollectingSink();
        mspti.wrap(record(2, 11, 12), 0).publish(KIND, sink, stats);
        mspti.wrap(record(CuptiExternalCorrelationDecoder.CUSTOM0, 11, 13), 0).publish(KIND, sink, stats);
        assertEquals(1, stats.bindings());
        assertEquals(12, sink.records.get(0).correlation());
        assertEquals(Map.of(KIND, 1L), stats.skippedByVendorKind());
    }

    @Test
    void aCutRecordIsRefusedWithTheVendorsStructName() {
        ByteBuffer b = record(3, 1, 1).limit(23);
        assertEquals("CUpti_ActivityExternalCorrelation of 24 bytes at offset 0 runs past the buffer's valid size 23",
                assertThrows(IndexOutOfBoundsException.class, () -> new CuptiExternalCorrelationDecoder().wrap(b, 0)).getMessage());
        assertEquals("msptiActivityExternalCorrelation of 24 bytes at offset 8 runs past the buffer's valid size 24",
                assertThrows(IndexOutOfBoundsException.class, () -> CuptiExternalCorrelationDecoder
                        .wideCorrelation("msptiActivityExternalCorrelation", 2).wrap(record(3, 1, 1), 8)).getMessage());
    }

    @Test
    void writeLaysOutWhatTheDecoderReadsAndClearsTheReservedHalf() {
        ByteBuffer out = ByteBuffer.allocate(48).order(ByteOrder.BIG_ENDIAN);
        for (int i = 0; i < 48; i++) {
            out.put(i, (byte) 0x5A);
        }
        CuptiExternalCorrelationDecoder.write(out, 24, KIND, CuptiExternalCorrelationDecoder.CUSTOM0, 1L << 40, 0xFFFF_FFF0L);
        ByteBuffer little = out.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        CuptiExternalCorrelationDecoder ext = new CuptiExternalCorrelationDecoder().wrap(little, 24);
        assertEquals(KIND, little.getInt(24));
        assertEquals(CuptiExternalCorrelationDecoder.CUSTOM0, ext.externalKind());
        assertEquals(1L << 40, ext.externalId());
        assertEquals(0xFFFF_FFF0L, ext.correlationId());
        assertEquals(0, little.getInt(44), "reserved");
        assertEquals(0xFFFF_FFF0L, CuptiExternalCorrelationDecoder.wideCorrelation("w", 3).wrap(little, 24).correlationId(),
                "a wide reader sees the same id: the reserved half is 0");
        assertTrue(little.get(0) == 0x5A && little.get(23) == 0x5A, "nothing before the record is touched");
    }
}
