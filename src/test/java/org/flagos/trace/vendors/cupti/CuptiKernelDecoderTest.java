package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.testing.TraceJson;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TruthRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The kernel flyweight alone, over every kernel record of the H200 captures that carry CUPTI's own
 * decoding: each field it reads at its CUDA 13.0 offset equals what CUPTI's struct gave, the name
 * handle is the pointer CUPTI reported (resolved by the capture's name table to CUPTI's name), and
 * the translator publishes those fields, the queued time and the graph ids (only when the graph id is
 * not 0) into a slot.
 */
class CuptiKernelDecoderTest {

    /** Every kernel record of the capture, in file order, walked with CUPTI 13.0's sizes. */
    private static List<FixtureRecords.Record> kernels(String capture) {
        return FixtureRecords.walk(capture, CuptiActivityKind.KERNEL, CuptiActivityKind.CONCURRENT_KERNEL);
    }

    @ParameterizedTest
    @ValueSource(strings = {"h200-app", "h200-app-tiny2k", "h200-mt4", "h200-tiny30k", "h200-kinds/h200-kinds",
        "h200-managed/h200-managed"})
    void everyKernelReadsAsCuptiDecodedIt(String capture) {
        List<JsonNode> truth = new ArrayList<>();
        for (JsonNode t : TruthRecord.read(Captures.truth(capture))) {
            if (t.get("kind").asText().equals("kernel")) {
                truth.add(t);
            }
        }
        List<FixtureRecords.Record> kernels = kernels(capture);
        assertEquals(truth.size(), kernels.size(), capture + ": kernel records");
        assertTrue(kernels.size() > 0, capture);
        KernelNameFile names = KernelNameFile.read(Captures.names(capture));
        CuptiRecordNaming naming = new CuptiRecordNaming(names, new CuptiKernelMetrics(List.of()));
        CuptiRecordTimes times = new CuptiRecordTimes();
        CuptiKernelDecoder k = new CuptiKernelDecoder(naming, CuptiRecordLayout.CUPTI_13_0, times);
        DecodeStats stats = new DecodeStats();
        TraceRecord slot = new TraceRecord();
        int inGraphs = 0;
        for (int i = 0; i < truth.size(); i++) {
            JsonNode t = truth.get(i);
            String where = capture + " kernel " + i;
            k.wrap(kernels.get(i).buffer(), kernels.get(i).offset());
            assertEquals(t.get("start").asLong(), k.rawStart(), where);
            assertEquals(t.get("end").asLong(), k.rawEnd(), where);
            assertEquals(t.get("correlation").asLong(), k.correlationId(), where);
            assertEquals(t.get("device").asInt(), k.deviceId(), where);
            assertEquals(t.get("context").asInt(), k.contextId(), where);
            assertEquals(t.get("stream").asInt(), k.streamId(), where);
            assertEquals(t.get("grid").get(0).asInt(), k.gridX(), where);
            assertEquals(t.get("grid").get(1).asInt(), k.gridY(), where);
            assertEquals(t.get("grid").get(2).asInt(), k.gridZ(), where);
            assertEquals(t.get("block").get(0).asInt(), k.blockX(), where);
            assertEquals(t.get("block").get(1).asInt(), k.blockY(), where);
            assertEquals(t.get("block").get(2).asInt(), k.blockZ(), where);
            assertEquals(t.get("registers").asInt(), k.registersPerThread(), where);
            assertEquals(t.get("static_smem").asInt(), k.staticSharedMemory(), where);
            assertEquals(t.get("dynamic_smem").asInt(), k.dynamicSharedMemory(), where);
            assertEquals(t.get("queued").asLong(), k.queued(), where);
            if (t.has("namePtr")) {
                assertEquals(t.get("namePtr").asLong(), k.nameHandle(), where);
            }
            assertEquals(t.get("name").asText(), names.lookup(k.nameHandle()), where + ": the handle names CUPTI's kernel");

            assertTrue(times.accept(k.rawStart(), k.rawEnd(), k.deviceId(), "kernel", stats), where);
            CuptiKernelDecoder.TRANSLATOR.translateTo(slot, i, k);
            assertEquals(RecordType.ACTIVITY, slot.type, where);
            assertEquals(EventKind.KERNEL, slot.kind, where);
            assertEquals(t.get("start").asLong(), slot.startNs, where);
            assertEquals(t.get("end").asLong(), slot.endNs, where);
            assertTrue(slot.hasCorrelation(), where);
            assertEquals(t.get("correlation").asLong(), slot.correlation(), where);
            assertFalse(slot.hasExternalId(), where + ": a decoder never invents an External id");
            assertEquals(t.get("stream").asInt(), slot.stream, where);
            assertEquals(t.get("grid").get(0).asInt(), slot.gridX, where);
            assertEquals(t.get("block").get(0).asInt(), slot.blockX, where);
            assertEquals(t.get("registers").asInt(), slot.registersPerThread, where);
            assertEquals(t.get("dynamic_smem").asInt(), slot.dynamicSharedMemory, where);
            assertEquals(t.get("queued").asLong(), slot.queued, where + ": CUPTI's 0 (not collected) stays 0");
            for (RecordField f : RecordField.values()) {
                if ((RecordField.CUDA_KERNEL & f.bit()) != 0) {
                    assertTrue(slot.has(f), where + " " + f);
                }
            }
            assertEquals(k.nameHandle(), slot.nameHandle, where);
            assertSame(naming, slot.naming, where);
            long graphId = t.path("graphId").asLong(0);
            assertEquals(graphId != 0, slot.has(RecordField.GRAPH), where);
            assertEquals(graphId, slot.graphId, where);
            assertEquals(graphId == 0 ? 0 : t.get("graphNodeId").asLong(), slot.graphNodeId, where);
            if (graphId != 0) {
                inGraphs++;
            }
        }
        assertEquals(0, stats.invalidRecords(), capture);
        if (capture.contains("kinds") || capture.contains("managed")) {
            assertTrue(inGraphs > 0, capture + " launches kernels from a graph");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 8, 215})
    void aRecordCutShortIsRefusedBeforeAnyFieldIsRead(int missing) {
        FixtureRecords.Record first = kernels("h200-app-tiny2k").get(0);
        ByteBuffer whole = first.buffer().duplicate().order(ByteOrder.LITTLE_ENDIAN);
        CuptiKernelDecoder k = new CuptiKernelDecoder(null, CuptiRecordLayout.CUPTI_13_0, new CuptiRecordTimes());
        whole.limit(first.offset() + 216);
        assertSame(k, k.wrap(whole, first.offset()), "a whole 216-byte Kernel10 record");
        ByteBuffer cut = whole.duplicate().order(ByteOrder.LITTLE_ENDIAN).limit(first.offset() + 216 - missing);
        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> k.wrap(cut, first.offset()));
        assertTrue(e.getMessage().startsWith("CUpti_ActivityKernel10 of 216 bytes at offset " + first.offset()), e.getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> k.wrap(whole, -1));
        // the shorter rows read the same offsets over their own record size
        CuptiKernelDecoder older = new CuptiKernelDecoder(null, CuptiRecordLayout.CUPTI_11_1, new CuptiRecordTimes());
        ByteBuffer kernel6 = whole.duplicate().order(ByteOrder.LITTLE_ENDIAN).limit(first.offset() + 168);
        assertEquals(k.wrap(whole, first.offset()).gridX(), older.wrap(kernel6, first.offset()).gridX());
        assertEquals(k.wrap(whole, first.offset()).nameHandle(), older.wrap(kernel6, first.offset()).nameHandle());
    }

    /**
     * Each field the flyweight reads, written alone at the offset gcc's {@code offsetof} gave for it
     * against CUDA 13.0's {@code cupti_activity.h} ({@code h200-managed.layouts.json}), with a value
     * that fills its width: the fixtures' kernels leave some fields at 0 (queued) or small (registers).
     */
    @Test
    void eachFieldIsReadAtCuda13sOffsetAndWidth() throws java.io.IOException {
        JsonNode layout = TraceJson.MAPPER.readTree(Captures.dir().resolve("h200-managed/h200-managed.layouts.json").toFile())
                .get("CUpti_ActivityKernel10");
        assertEquals(216, layout.get("sizeof").asInt());
        assertEquals(216, CuptiRecordLayout.CUPTI_13_0.recordSize(CuptiActivityKind.CONCURRENT_KERNEL));
        Map<String, int[]> fields = new HashMap<>();
        for (JsonNode f : layout.get("fields")) {
            fields.put(f.get("field").asText(), new int[] {f.get("offset").asInt(), f.get("size").asInt()});
        }
        Map<String, java.util.function.ToLongFunction<CuptiKernelDecoder>> read = new java.util.LinkedHashMap<>();
        read.put("registersPerThread", CuptiKernelDecoder::registersPerThread);
        read.put("start", CuptiKernelDecoder::rawStart);
        read.put("end", CuptiKernelDecoder::rawEnd);
        read.put("deviceId", CuptiKernelDecoder::deviceId);
        read.put("contextId", CuptiKernelDecoder::contextId);
        read.put("streamId", CuptiKernelDecoder::streamId);
        read.put("gridX", CuptiKernelDecoder::gridX);
        read.put("gridY", CuptiKernelDecoder::gridY);
        read.put("gridZ", CuptiKernelDecoder::gridZ);
        read.put("blockX", CuptiKernelDecoder::blockX);
        read.put("blockY", CuptiKernelDecoder::blockY);
        read.put("blockZ", CuptiKernelDecoder::blockZ);
        read.put("staticSharedMemory", CuptiKernelDecoder::staticSharedMemory);
        read.put("dynamicSharedMemory", CuptiKernelDecoder::dynamicSharedMemory);
        read.put("correlationId", CuptiKernelDecoder::correlationId);
        read.put("name", CuptiKernelDecoder::nameHandle);
        read.put("queued", CuptiKernelDecoder::queued);
        CuptiKernelDecoder k = new CuptiKernelDecoder(null, CuptiRecordLayout.CUPTI_13_0, new CuptiRecordTimes());
        for (Map.Entry<String, java.util.function.ToLongFunction<CuptiKernelDecoder>> e : read.entrySet()) {
            int[] at = fields.get(e.getKey());
            ByteBuffer b = ByteBuffer.allocate(216).order(ByteOrder.LITTLE_ENDIAN);
            long expected = switch (at[1]) {
                case 2 -> {
                    b.putShort(at[0], (short) 0xFFFF);
                    yield 0xFFFF; // unsigned
                }
                case 4 -> {
                    b.putInt(at[0], 0x8765_4321);
                    yield e.getKey().equals("correlationId") ? 0x8765_4321L : 0x8765_4321;
                }
                case 8 -> {
                    b.putLong(at[0], 0x8123_4567_89ab_cdefL);
                    yield 0x8123_4567_89ab_cdefL;
                }
                default -> throw new AssertionError(e.getKey() + " of " + at[1] + " bytes");
            };
            assertEquals(expected, e.getValue().applyAsLong(k.wrap(b, 0)), e.getKey() + " at offset " + at[0]);
        }
        // the graph ids: graphId 32 bits unsigned, graphNodeId 64
        ByteBuffer b = ByteBuffer.allocate(216).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(fields.get("start")[0], 1_000).putLong(fields.get("end")[0], 2_000);
        b.putInt(fields.get("graphId")[0], 0x8000_0001).putLong(fields.get("graphNodeId")[0], 0x7000_0000_0000_0002L);
        assertEquals(4, fields.get("graphId")[1]);
        CuptiRecordTimes times = new CuptiRecordTimes();
        CuptiKernelDecoder g = new CuptiKernelDecoder(null, CuptiRecordLayout.CUPTI_13_0, times);
        assertTrue(times.accept(1_000, 2_000, 0, "kernel", new DecodeStats()));
        TraceRecord slot = new TraceRecord();
        CuptiKernelDecoder.TRANSLATOR.translateTo(slot, 0, g.wrap(b, 0));
        assertTrue(slot.has(RecordField.GRAPH));
        assertEquals(0x8000_0001L, slot.graphId);
        assertEquals(0x7000_0000_0000_0002L, slot.graphNodeId);
        // CUPTI 11.1's Kernel6 carries no graph ids: the same bytes publish none
        CuptiKernelDecoder kernel6 = new CuptiKernelDecoder(null, CuptiRecordLayout.CUPTI_11_1, times);
        TraceRecord old = new TraceRecord();
        CuptiKernelDecoder.TRANSLATOR.translateTo(old, 0, kernel6.wrap(b, 0));
        assertFalse(old.has(RecordField.GRAPH));
        assertEquals(0, old.graphId);
    }
}
