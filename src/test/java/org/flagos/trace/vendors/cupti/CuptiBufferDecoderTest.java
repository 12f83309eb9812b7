package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.FltrbufFrames;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordLimits;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.CollectingSink;
import org.flagos.trace.testing.CuptiRecords;
import org.flagos.trace.testing.TruthRecord;
import org.flagos.trace.vendors.family.VendorClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The decoder's own rules: which kind goes to which flyweight and which count (on the H200 capture
 * that holds every kind of issue 16, against CUPTI's own decoding), the device a synchronization
 * takes from its context, the walk's end on a cut record or a kind the layout does not know (in the
 * decoder's wording), the kinds a scanning vendor's row cannot read, and the plausible span of
 * {@link CuptiBufferDecoder#clock} and {@link CuptiBufferDecoder#replayClock}.
 */
class CuptiBufferDecoderTest {
    private static final String KINDS = "h200-kinds/h200-kinds";
    private static final String CUPTI_13 = "CUPTI 13.0 (API version 130001)";

    private static CuptiBufferDecoder decoder(String capture) {
        return new CuptiBufferDecoder(KernelNameFile.read(Captures.names(capture)), new NameTable(), List.of());
    }

    private static void decodeCapture(CuptiBufferDecoder decoder, String capture, CollectingSink sink, DecodeStats stats) {
        FltrbufFrames frames = new FltrbufFrames(CaptureBytes.load(Captures.capture(capture)), capture);
        while (frames.next()) {
            decoder.decode(frames.payload(), sink, stats);
        }
    }

    private static ByteBuffer wrap(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Test
    void everyKindOfTheKindsCaptureIsCountedWhereCuptisOwnDecodingPutsIt() {
        Map<String, Long> truth = new TreeMap<>();
        for (JsonNode t : TruthRecord.read(Captures.truth(KINDS))) {
            truth.merge(t.get("kind").asText(), 1L, Long::sum);
        }
        DecodeStats stats = new DecodeStats();
        CollectingSink sink = new CollectingSink();
        decodeCapture(decoder(KINDS), KINDS, sink, stats);

        Map<String, Long> decoded = new TreeMap<>();
        decoded.put("external_correlation", stats.bindings());
        decoded.put("runtime", stats.published(EventKind.RUNTIME));
        decoded.put("driver", stats.published(EventKind.DRIVER));
        decoded.put("synchronization", stats.published(EventKind.SYNC));
        decoded.put("memory2", stats.published(EventKind.MEMORY));
        decoded.put("kernel", stats.published(EventKind.KERNEL));
        decoded.put("marker", stats.published(EventKind.MARKER));
        decoded.put("overhead", stats.published(EventKind.OVERHEAD));
        decoded.put("memcpy", stats.published(EventKind.MEMCPY));
        decoded.put("memset", stats.published(EventKind.MEMSET));
        decoded.put("marker_data", stats.annotationAttributesRead());
        assertEquals(truth, decoded, "per kind: CUPTI's lines, our counts");
        assertEquals(truth.values().stream().mapToLong(Long::longValue).sum() - truth.get("marker_data"),
                sink.records.size(), "every record but the annotation attributes is published");
        assertEquals(0, stats.undecodableBytes());
        assertEquals(0, stats.invalidRecords());
        assertEquals(0, stats.skippedTotal());
        assertEquals("", stats.problems());
    }

    @Test
    void aSynchronizationTakesTheDeviceOfItsContextFromTheRecordsBeforeIt() {
        byte[] bytes = new CuptiRecords()
                .sync(3, 100, 110, 1, 2, 7, CuptiRecords.INVALID) // context 2 not seen yet: device 0
                .kernel(200, 300, 3, 2, 7, 2, 0, 0, 0) // context 2 runs on device 3
                .sync(3, 400, 410, 3, 2, 7, CuptiRecords.INVALID)
                .peerCopy(500, 600, 64, 1, 9, 7, 4, 11, 5, 12, 4, 0, 0) // both ends are learned
                .sync(3, 700, 710, 5, 11, 7, CuptiRecords.INVALID)
                .sync(3, 800, 810, 6, 12, 7, CuptiRecords.INVALID)
                .sync(3, 900, 910, 7, 9, 7, CuptiRecords.INVALID)
                .bytes();
        CollectingSink sink = new CollectingSink();
        DecodeStats stats = new DecodeStats();
        new CuptiBufferDecoder(KernelNames.NONE, new NameTable(), List.of()).decode(wrap(bytes), sink, stats);
        assertEquals(5, stats.published(EventKind.SYNC), stats.problems());
        int[] devices = sink.records.stream().filter(r -> r.kind == EventKind.SYNC).mapToInt(r -> r.device).toArray();
        assertEquals(List.of(0, 3, 4, 5, 1), java.util.Arrays.stream(devices).boxed().toList());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 4, 100, 215})
    void aRecordCutShortEndsTheWalkAfterTheWholeOnesWithTheBytesCounted(int kept) {
        byte[] bytes = new CuptiRecords().runtime(211, 10, 20, 1, 2, 1).kernel(30, 40, 0, 1, 7, 1, 0, 0, 0).bytes();
        ByteBuffer cut = wrap(bytes).limit(40 + kept);
        CollectingSink sink = new CollectingSink();
        DecodeStats stats = new DecodeStats();
        new CuptiBufferDecoder(KernelNames.NONE, new NameTable(), List.of()).decode(cut, sink, stats);
        assertEquals(1, sink.records.size());
        assertEquals(EventKind.RUNTIME, sink.records.get(0).kind);
        assertEquals(kept, stats.undecodableBytes());
        assertEquals(kept < 4 ? "CUPTI buffer ends with " + kept + " stray bytes at offset 40"
                : "CUPTI record of kind 10 at offset 40 needs 216 bytes, buffer has " + kept, stats.problems());
    }

    @Test
    void aKindTheLayoutDoesNotKnowEndsTheWalkNamingTheLayout() {
        byte[] bytes = new CuptiRecords().runtime(211, 10, 20, 1, 2, 1).runtime(211, 30, 40, 1, 2, 2).bytes();
        wrap(bytes).putInt(40, 99);
        DecodeStats stats = new DecodeStats();
        CollectingSink sink = new CollectingSink();
        new CuptiBufferDecoder(KernelNames.NONE, new NameTable(), List.of()).decode(wrap(bytes), sink, stats);
        assertEquals(1, sink.records.size());
        assertEquals(40, stats.undecodableBytes());
        assertEquals("unknown CUPTI activity kind 99 at offset 40: its size is unknown to layout " + CUPTI_13
                + ", rest of buffer (40 bytes) skipped", stats.problems());

        DecodeStats mupti = new DecodeStats();
        CuptiBufferDecoder.vendorClock("MUPTI", CuptiRecordLayout.CUPTI_11_1, KernelNames.NONE, new NameTable(),
                CuptiBufferDecoder.cudaApiNames()).decode(wrap(bytes), new CollectingSink(), mupti);
        assertEquals("unknown MUPTI activity kind 99 at offset 40: its size is unknown, rest of buffer (40 bytes) skipped",
                mupti.problems(), "a vendor-clock decoder names its vendor and no layout");
    }

    @Test
    void anOverheadRecordEndsAWalkOfTheCupti12Row() {
        byte[] bytes = new CuptiRecords().overhead(1, 10, 20, 1, 2).runtime(211, 30, 40, 1, 2, 2).bytes();
        DecodeStats stats = new DecodeStats();
        CuptiBufferDecoder decoder = new CuptiBufferDecoder(KernelNames.NONE, new NameTable(), List.of(),
                CuptiRecordLayout.CUPTI_12_1, CuptiApiNames.INSTANCE);
        decoder.decode(wrap(bytes), new CollectingSink(), stats);
        assertEquals(bytes.length, stats.undecodableBytes());
        assertEquals("unknown CUPTI activity kind 17 at offset 0: its size is unknown to layout CUPTI 12.1 (API version 18)"
                + ", rest of buffer (" + bytes.length + " bytes) skipped", stats.problems());
    }

    @Test
    void aScanningVendorsRecordOfAKindItsRowCannotReadIsCountedSkipped() {
        // MCPTI's scanner sizes records itself and hands each to decodeRecord: a kind the 12.1 row has no
        // struct for is counted under its kind, never read through another row's offsets.
        CuptiBufferDecoder decoder = new CuptiBufferDecoder(KernelNames.NONE, new NameTable(), List.of(),
                CuptiRecordLayout.CUPTI_12_1, CuptiApiNames.INSTANCE);
        ByteBuffer zeros = wrap(new byte[256]);
        DecodeStats stats = new DecodeStats();
        CollectingSink sink = new CollectingSink();
        int[] unreadable = {CuptiActivityKind.MEMORY2, CuptiActivityKind.MARKER, CuptiActivityKind.MARKER_DATA,
            CuptiActivityKind.UNIFIED_MEMORY_COUNTER, CuptiActivityKind.MEMCPY2, 8 /* CUPTI's CONTEXT: never decoded */};
        for (int kind : unreadable) {
            decoder.decodeRecord(kind, zeros, 0, sink, stats);
        }
        assertEquals(Map.of(49, 1L, 12, 1L, 13, 1L, 25, 1L, 22, 1L, 8, 1L), stats.skippedByVendorKind());
        assertEquals(0, sink.records.size());
        assertEquals(0, stats.annotationAttributesRead());
    }

    @Test
    void aRecordOutsideThePlausibleSpanIsDroppedAndSaysWhyBindingsAreKept() {
        byte[] bytes = new CuptiRecords().binding(1, 5).runtime(211, 1000, 1100, 1, 2, 1)
                .kernel(2000, 2500, 0, 1, 7, 1, 0, 0, 0).runtime(211, 3000, 3100, 1, 2, 2).bytes();
        CuptiBufferDecoder decoder = new CuptiBufferDecoder(KernelNames.NONE, new NameTable(), List.of());
        decoder.clock(DeviceClockMapping.IDENTITY, 1000, 2400);
        DecodeStats stats = new DecodeStats();
        CollectingSink sink = new CollectingSink();
        decoder.decode(wrap(bytes), sink, stats);
        assertEquals(1, stats.bindings());
        assertEquals(1, stats.published(EventKind.RUNTIME));
        assertEquals(2, stats.invalidRecords());
        assertEquals("kernel record: times [2000, 2500] lie outside the session's plausible span [1000, 2400]; "
                + "API record: times [3000, 3100] lie outside the session's plausible span [1000, 2400]", stats.problems());
    }

    @Test
    void aZeroStartIsIncompleteNotInvalid() {
        byte[] bytes = new CuptiRecords().kernel(0, 0, 0, 1, 7, 1, 0, 0, 0).bytes();
        DecodeStats stats = new DecodeStats();
        new CuptiBufferDecoder(KernelNames.NONE, new NameTable(), List.of()).decode(wrap(bytes), new CollectingSink(), stats);
        assertEquals(1, stats.incompleteRecords());
        assertEquals(0, stats.invalidRecords());
        assertEquals(0, stats.published(EventKind.KERNEL));
    }

    @Test
    void aReplayBelievesTheSessionsStartLessTheSlackToADayAfterIt() {
        long vendor = 5_000_000_000L;
        long epoch = 1_796_157_627_000_000_000L;
        long slack = VendorClock.SLACK_NS;
        byte[] bytes = new CuptiRecords()
                .runtime(211, vendor - slack, vendor + 10, 1, 2, 1) // at the span's first ns: kept
                .runtime(211, vendor - slack - 1, vendor + 10, 1, 2, 2) // one ns before it: dropped
                .runtime(211, vendor + RecordLimits.MAX_SPAN_NS - 10, vendor + RecordLimits.MAX_SPAN_NS, 1, 2, 3) // kept
                .runtime(211, vendor + RecordLimits.MAX_SPAN_NS - 10, vendor + RecordLimits.MAX_SPAN_NS + 1, 1, 2, 4)
                .bytes();
        CuptiBufferDecoder decoder = CuptiBufferDecoder.vendorClock("PPU", CuptiRecordLayout.CUPTI_13_0, KernelNames.NONE,
                new NameTable(), CuptiBufferDecoder.cudaApiNames());
        decoder.replayClock(new DeviceClockMapping(vendor, epoch, 1.0));
        DecodeStats stats = new DecodeStats();
        CollectingSink sink = new CollectingSink();
        decoder.decode(wrap(bytes), sink, stats);
        assertEquals(List.of(1L, 3L), sink.records.stream().map(TraceRecord::correlation).toList(), stats.problems());
        assertEquals(epoch - slack, sink.records.get(0).startNs, "times are mapped to epoch ns");
        assertEquals(2, stats.invalidRecords());
    }

    @Test
    void anIdentityReplayBelievesEveryPositiveTime() {
        byte[] bytes = new CuptiRecords().runtime(211, 1, 2, 1, 2, 1).runtime(211, Long.MAX_VALUE - 1, Long.MAX_VALUE, 1, 2, 2)
                .bytes();
        CuptiBufferDecoder decoder = new CuptiBufferDecoder(KernelNames.NONE, new NameTable(), List.of());
        decoder.clock(DeviceClockMapping.IDENTITY, 500, 600); // a live session's span, forgotten by the replay's
        decoder.replayClock(DeviceClockMapping.IDENTITY);
        DecodeStats stats = new DecodeStats();
        decoder.decode(wrap(bytes), new CollectingSink(), stats);
        assertEquals(2, stats.published(EventKind.RUNTIME), stats.problems());
    }
}
