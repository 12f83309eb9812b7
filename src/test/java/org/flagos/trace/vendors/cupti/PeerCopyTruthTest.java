package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.FltrbufFrames;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.flagos.trace.testing.TruthRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * Every MEMCPY2 record of a kinds capture, decoded by {@link CuptiPeerCopyDecoder}, equals the
 * {@code memcpy_p2p} line CUPTI's own decoding wrote for it ({@code kinds_capture.cu}'s
 * {@code memcpyP2pLine}), field by field and in order. The bundled kinds captures are of one GPU:
 * they have none, and the decoder must find none. A capture of two GPUs
 * ({@code CAPTURE_NAME=h200x2-kinds benchmarks/run-device-kinds.sh} on a machine of two) is checked by
 * adding its name to {@link #CAPTURES}. The comparison itself is checked on synthetic records and
 * their truth lines, and must catch one field changed.
 */
class PeerCopyTruthTest {
    static final List<String> CAPTURES = List.of("h200-kinds/h200-kinds", "h200-managed/h200-managed");

    @ParameterizedTest
    @FieldSource("CAPTURES")
    void everyPeerCopyMatchesCuptisOwnDecoding(String capture) {
        List<CaptureReplay.Frame> frames = new ArrayList<>();
        FltrbufFrames in = new FltrbufFrames(CaptureBytes.load(Captures.capture(capture)), capture);
        while (in.next()) {
            frames.add(new CaptureReplay.Frame(in.vendor(), in.payload()));
        }
        List<JsonNode> truth = TruthRecord.read(Captures.truth(capture));
        List<String> mismatches = mismatches(PeerCopyTest.withoutUnifiedMemory(frames), truth);
        assertEquals(List.of(), mismatches, capture);
        long lines = truth.stream().filter(t -> t.get("kind").asText().equals("memcpy_p2p")).count();
        if (capture.startsWith("h200-")) {
            assertEquals(0, lines, "one GPU: CUPTI wrote no MEMCPY2 record");
        }
    }

    @Test
    void theComparisonHoldsForRecordsAndTheirTruthAndCatchesAFieldChanged() {
        List<CaptureReplay.Frame> frames = List.of(PeerCopyTest.device().frame());
        List<JsonNode> truth = List.of(
                line(PeerCopyTest.device(), 0), line(PeerCopyTest.device(), 1), line(PeerCopyTest.device(), 2));
        assertEquals(List.of(), mismatches(frames, truth));
        ((ObjectNode) truth.get(1)).put("dstContextId", 4);
        assertEquals(List.of("peer copy 1 dstContextId: truth 4, decoded 1"), mismatches(frames, truth));
    }

    /** The truth line kinds_capture.cu writes for record {@code i} of {@code records}, read back from the bytes. */
    private static JsonNode line(org.flagos.trace.testing.CuptiRecords records, int i) {
        ByteBuffer b = ByteBuffer.wrap(records.bytes()).order(ByteOrder.LITTLE_ENDIAN);
        int at = i * 96;
        ObjectNode t = TraceJson.MAPPER.createObjectNode();
        t.put("kind", "memcpy_p2p").put("cuptiKind", b.getInt(at)).put("start", b.getLong(at + 16))
                .put("end", b.getLong(at + 24)).put("correlation", Integer.toUnsignedLong(b.getInt(at + 60)))
                .put("device", b.getInt(at + 32)).put("stream", b.getInt(at + 40)).put("bytes", b.getLong(at + 8))
                .put("copyKind", b.get(at + 4)).put("srcKind", b.get(at + 5)).put("dstKind", b.get(at + 6))
                .put("context", b.getInt(at + 36)).put("flags", b.get(at + 7))
                .put("srcDeviceId", b.getInt(at + 44)).put("srcContextId", b.getInt(at + 48))
                .put("dstDeviceId", b.getInt(at + 52)).put("dstContextId", b.getInt(at + 56))
                .put("graphNodeId", b.getLong(at + 72)).put("graphId", Integer.toUnsignedLong(b.getInt(at + 80)))
                .put("channelID", b.getInt(at + 84)).put("channelType", b.getInt(at + 88));
        return t;
    }

    /** The fields of each decoded peer copy that differ from its truth line (in order), and a count that differs. */
    static List<String> mismatches(List<CaptureReplay.Frame> frames, List<JsonNode> truth) {
        List<TraceRecord> decoded = new ArrayList<>();
        CuptiBufferDecoder decoder = new CuptiBufferDecoder(KernelNames.NONE, new NameTable(), List.of());
        DecodeStats stats = new DecodeStats();
        RecordSink sink = new RecordSink() {
            @Override
            public <A> void publish(EventTranslatorOneArg<TraceRecord, A> translator, A source) {
                TraceRecord r = new TraceRecord();
                translator.translateTo(r, 0, source);
                if (r.has(RecordField.PEER)) {
                    decoded.add(r);
                }
            }
        };
        for (CaptureReplay.Frame f : frames) {
            decoder.decode(f.payload().duplicate().order(ByteOrder.LITTLE_ENDIAN), sink, stats);
        }
        List<JsonNode> lines = truth.stream().filter(t -> t.get("kind").asText().equals("memcpy_p2p")).toList();
        List<String> out = new ArrayList<>();
        if (lines.size() != decoded.size()) {
            out.add(lines.size() + " memcpy_p2p lines, " + decoded.size() + " peer copies decoded");
            return out;
        }
        for (int i = 0; i < lines.size(); i++) {
            JsonNode t = lines.get(i);
            TraceRecord r = decoded.get(i);
            long graphId = t.get("graphId").asLong();
            long[][] pairs = {
                {t.get("start").asLong(), r.startNs}, {t.get("end").asLong(), r.endNs},
                {t.get("correlation").asLong(), r.correlation()}, {t.get("device").asLong(), r.device},
                {t.get("context").asLong(), r.context}, {t.get("stream").asLong(), r.stream},
                {t.get("bytes").asLong(), r.bytes}, {t.get("copyKind").asLong(), r.copyKind.ordinal()},
                {t.get("srcKind").asLong(), r.srcKind.ordinal()}, {t.get("dstKind").asLong(), r.dstKind.ordinal()},
                {t.get("srcDeviceId").asLong(), r.srcDevice}, {t.get("srcContextId").asLong(), r.srcContext},
                {t.get("dstDeviceId").asLong(), r.dstDevice}, {t.get("dstContextId").asLong(), r.dstContext},
                {graphId, r.has(RecordField.GRAPH) ? r.graphId : 0},
                {graphId == 0 ? 0 : t.get("graphNodeId").asLong(), r.has(RecordField.GRAPH) ? r.graphNodeId : 0},
            };
            String[] names = {"start", "end", "correlation", "device", "context", "stream", "bytes", "copyKind", "srcKind",
                "dstKind", "srcDeviceId", "srcContextId", "dstDeviceId", "dstContextId", "graphId", "graphNodeId"};
            for (int f = 0; f < names.length; f++) {
                if (pairs[f][0] != pairs[f][1]) {
                    out.add("peer copy " + i + " " + names[f] + ": truth " + pairs[f][0] + ", decoded " + pairs[f][1]);
                }
            }
        }
        return out;
    }
}
