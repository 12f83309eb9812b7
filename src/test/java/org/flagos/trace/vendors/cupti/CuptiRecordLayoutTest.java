package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.TreeMap;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.FltrbufFrames;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TruthRecord;
import org.flagos.trace.vendors.activity.RecordWalk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The rows of record sizes: CUPTI 13.0's strides walk every byte of the real H200 captures and find
 * each record CUPTI's own decoding found, kind by kind; the older rows have the sizes of their public
 * headers, and a kind a row does not know is -1 (a walk's end), never a guess.
 */
class CuptiRecordLayoutTest {
    @ParameterizedTest
    @ValueSource(strings = {"h200-app-tiny2k", "h200-mt4", "h200-kinds/h200-kinds", "h200-managed/h200-managed"})
    void cupti13StridesWalkEveryByteOfARealCaptureToCuptisRecords(String capture) {
        Map<Integer, Long> truth = new TreeMap<>();
        for (JsonNode t : TruthRecord.read(Captures.truth(capture))) {
            int kind = t.has("cuptiKind") ? t.get("cuptiKind").asInt() : switch (t.get("kind").asText()) {
                case "runtime" -> CuptiActivityKind.RUNTIME;
                case "kernel" -> CuptiActivityKind.CONCURRENT_KERNEL;
                case "memcpy" -> CuptiActivityKind.MEMCPY;
                case "memset" -> CuptiActivityKind.MEMSET;
                case "external_correlation" -> CuptiActivityKind.EXTERNAL_CORRELATION;
                default -> throw new AssertionError(capture + ": truth kind " + t.get("kind"));
            };
            truth.merge(kind, 1L, Long::sum);
        }
        Map<Integer, Long> walked = new TreeMap<>();
        RecordWalk walk = new RecordWalk("CUPTI", CuptiRecordLayout.CUPTI_13_0::recordSize, "");
        DecodeStats stats = new DecodeStats();
        long bytes = 0;
        long strides = 0;
        FltrbufFrames frames = new FltrbufFrames(CaptureBytes.load(Captures.capture(capture)), capture);
        while (frames.next()) {
            ByteBuffer payload = frames.payload();
            bytes += payload.remaining();
            walk.start(payload, stats);
            for (int pos = walk.next(); pos >= 0; pos = walk.next()) {
                walked.merge(walk.kind(), 1L, Long::sum);
                strides += CuptiRecordLayout.CUPTI_13_0.recordSize(walk.kind());
            }
        }
        assertEquals(truth, walked, capture + ": records per CUPTI kind");
        assertEquals(bytes, strides, capture + ": the strides add up to the buffers' bytes");
        assertEquals(0, stats.undecodableBytes(), stats.problems());
    }

    @Test
    void eachRowHasItsHeadersSizes() {
        int[] kinds = {CuptiActivityKind.KERNEL, CuptiActivityKind.CONCURRENT_KERNEL, CuptiActivityKind.MEMCPY,
            CuptiActivityKind.MEMSET, CuptiActivityKind.DRIVER, CuptiActivityKind.RUNTIME, CuptiActivityKind.OVERHEAD,
            CuptiActivityKind.EXTERNAL_CORRELATION, CuptiActivityKind.SYNCHRONIZATION, CuptiActivityKind.MEMORY2,
            CuptiActivityKind.MARKER, CuptiActivityKind.MARKER_DATA, CuptiActivityKind.UNIFIED_MEMORY_COUNTER,
            CuptiActivityKind.MEMCPY2};
        assertSizes(CuptiRecordLayout.CUPTI_13_0, kinds, 216, 216, 96, 88, 40, 40, 56, 24, 56, 128, 56, 40, 104, 96);
        assertSizes(CuptiRecordLayout.CUPTI_12_1, kinds, 208, 208, 88, 88, 40, 40, -1, 24, 40, -1, -1, -1, -1, -1);
        assertSizes(CuptiRecordLayout.CUPTI_11_1, kinds, 168, 168, 80, 80, 40, 40, -1, 24, 40, -1, -1, -1, -1, -1);
    }

    private static void assertSizes(CuptiRecordLayout row, int[] kinds, int... sizes) {
        for (int i = 0; i < kinds.length; i++) {
            assertEquals(sizes[i], row.recordSize(kinds[i]), row + ": kind " + kinds[i]);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 6, 7, 8, 9, 11, 14, 50, 255, 256, -1, Integer.MIN_VALUE})
    void aKindNoRowDefinesHasNoSize(int kind) {
        for (CuptiRecordLayout row : new CuptiRecordLayout[] {CuptiRecordLayout.CUPTI_13_0, CuptiRecordLayout.CUPTI_12_1,
            CuptiRecordLayout.CUPTI_11_1}) {
            assertEquals(-1, row.recordSize(kind), row + ": kind " + kind);
        }
    }

    @Test
    void graphIdsAreReadOnlyWhereTheHeadersAreKnown() {
        assertTrue(CuptiRecordLayout.CUPTI_13_0.graphIds);
        assertTrue(CuptiRecordLayout.CUPTI_12_1.graphIds);
        assertFalse(CuptiRecordLayout.CUPTI_11_1.graphIds, "11.1's row is assumed for vendors whose headers are not public");
    }

    @Test
    void eachRowNamesItselfAndItsRecordsForProblems() {
        assertEquals("CUPTI 13.0 (API version 130001)", CuptiRecordLayout.CUPTI_13_0.toString());
        assertEquals("CUPTI 12.1 (API version 18)", CuptiRecordLayout.CUPTI_12_1.toString());
        assertEquals("CUPTI 11.1 (Kernel6, Memcpy4, Memset3)", CuptiRecordLayout.CUPTI_11_1.toString());
        assertEquals("CUpti_ActivityKernel10", CuptiRecordLayout.CUPTI_13_0.kernelRecord);
        assertEquals("CUpti_ActivityMemcpy5", CuptiRecordLayout.CUPTI_12_1.memcpyRecord);
        assertEquals("Memset3 record", CuptiRecordLayout.CUPTI_11_1.memsetRecord);
        assertEquals("CUpti_ActivityMemory4", CuptiRecordLayout.CUPTI_13_0.memoryRecord);
        assertEquals("memory record", CuptiRecordLayout.CUPTI_12_1.memoryRecord, "a row without MEMORY2 has the generic name");
        assertEquals("CUpti_ActivityMemcpyPtoP4", CuptiRecordLayout.CUPTI_13_0.peerCopyRecord);
        assertEquals("CUpti_ActivitySynchronization2", CuptiRecordLayout.CUPTI_13_0.syncRecord);
        assertEquals("CUpti_ActivitySynchronization", CuptiRecordLayout.CUPTI_12_1.syncRecord);
    }
}
