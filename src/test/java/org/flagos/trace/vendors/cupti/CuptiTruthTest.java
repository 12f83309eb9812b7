package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.ByteBuffer;
import java.util.List;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.FltrbufFrames;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.stages.names.ItaniumDemangler;
import java.util.Optional;
import org.flagos.trace.model.CorrelationId;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceEvent;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.CollectingSink;
import org.flagos.trace.testing.TruthRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * Every record of every bundled H200 capture, decoded by our flyweights, equals the line CUPTI's
 * own decoding ({@code cuptiActivityGetNextRecord} + the CUPTI 13 structs) wrote for it, field by
 * field and in the same order.
 */
class CuptiTruthTest {
    static final List<String> CAPTURES = Captures.ALL;

    @ParameterizedTest
    @FieldSource("CAPTURES")
    void everyRecordMatchesCuptisOwnDecoding(String capture) {
        NameTable names = new NameTable();
        CuptiBufferDecoder decoder = new CuptiBufferDecoder(KernelNameFile.read(Captures.names(capture)), names, List.of());
        DecodeStats stats = new DecodeStats();
        CollectingSink sink = CollectingSink.named(decoder.apiNames(), names, stats);
        ByteBuffer bytes = CaptureBytes.load(Captures.capture(capture));
        FltrbufFrames frames = new FltrbufFrames(bytes, capture);
        while (frames.next()) {
            assertEquals(1, frames.vendor());
            decoder.decode(frames.payload(), sink, stats);
        }
        List<JsonNode> truth = TruthRecord.read(Captures.truth(capture));
        assertEquals(truth.size(), sink.records.size(), "record count");
        assertEquals(0, stats.undecodableBytes());
        assertEquals(0, stats.invalidRecords());
        assertEquals(0, stats.skippedTotal());
        for (int i = 0; i < truth.size(); i++) {
            assertRecord(truth.get(i), sink.records.get(i), names, capture + " record " + i);
        }
    }

    private static void assertRecord(JsonNode t, TraceRecord r, NameTable names, String where) {
        String kind = t.get("kind").asText();
        if (kind.equals("external_correlation")) {
            assertEquals(RecordType.CORRELATION_BINDING, r.type, where);
            assertEquals(CuptiExternalCorrelationDecoder.CUSTOM0, t.get("externalKind").asInt(), where);
            assertEquals(t.get("externalId").asLong(), r.externalId(), where);
            assertTrue(r.hasExternalId(), where);
            assertEquals(t.get("correlation").asLong(), r.correlation(), where);
            return;
        }
        assertEquals(RecordType.ACTIVITY, r.type, where);
        DeviceEvent event = DeviceEvent.of(r, names);
        assertEquals(t.get("start").asLong(), event.startNs(), where + " start");
        assertEquals(t.get("end").asLong(), event.endNs(), where + " end");
        assertEquals(Optional.of(new CorrelationId(t.get("correlation").asLong())), event.correlation(), where + " correlation");
        assertEquals(Optional.empty(), event.externalId(), where + ": decoders never invent an External id");
        switch (kind) {
            case "runtime":
                assertEquals(EventKind.RUNTIME, r.kind, where);
                assertEquals(t.get("cbid").asInt(), r.cbid, where);
                assertEquals(t.get("thread").asLong(), r.threadId, where);
                // cuptiGetCallbackName's name carries the _vNNNN version suffix torch drops.
                assertEquals(t.get("name").asText().replaceFirst("_v\\d{4,5}$", ""),
                        CuptiApiNames.INSTANCE.name(EventKind.RUNTIME, r.cbid), where);
                break;
            case "kernel":
                assertEquals(EventKind.KERNEL, r.kind, where);
                assertEquals(t.get("device").asInt(), r.device, where);
                assertEquals(t.get("context").asInt(), r.context, where);
                assertEquals(t.get("stream").asInt(), r.stream, where);
                assertEquals(t.get("grid").get(0).asInt(), r.gridX, where);
                assertEquals(t.get("grid").get(1).asInt(), r.gridY, where);
                assertEquals(t.get("grid").get(2).asInt(), r.gridZ, where);
                assertEquals(t.get("block").get(0).asInt(), r.blockX, where);
                assertEquals(t.get("block").get(1).asInt(), r.blockY, where);
                assertEquals(t.get("block").get(2).asInt(), r.blockZ, where);
                assertEquals(t.get("registers").asInt(), r.registersPerThread, where);
                assertEquals(t.get("static_smem").asInt(), r.staticSharedMemory, where);
                assertEquals(t.get("dynamic_smem").asInt(), r.dynamicSharedMemory, where);
                assertEquals(t.get("queued").asLong(), r.queued, where);
                assertEquals(ItaniumDemangler.demangle(t.get("name").asText()), names.name(r.nameId), where);
                break;
            case "memcpy":
                assertEquals(EventKind.MEMCPY, r.kind, where);
                assertEquals(t.get("device").asInt(), r.device, where);
                assertEquals(t.get("stream").asInt(), r.stream, where);
                assertEquals(t.get("bytes").asLong(), r.bytes, where);
                assertEquals(t.get("copyKind").asInt(), r.copyKind.ordinal(), where);
                assertEquals(t.get("srcKind").asInt(), r.srcKind.ordinal(), where);
                assertEquals(t.get("dstKind").asInt(), r.dstKind.ordinal(), where);
                break;
            case "memset":
                assertEquals(EventKind.MEMSET, r.kind, where);
                assertEquals(t.get("device").asInt(), r.device, where);
                assertEquals(t.get("stream").asInt(), r.stream, where);
                assertEquals(t.get("bytes").asLong(), r.bytes, where);
                assertEquals(t.get("value").asInt(), r.memsetValue, where);
                assertEquals(t.get("memoryKind").asInt(), r.memoryKind.ordinal(), where);
                break;
            default:
                throw new AssertionError(where + ": truth kind " + kind + " not covered");
        }
    }
}
