package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.dsl.ProducerType;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.FltrbufFrames;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.model.ActivityBufferDecoder;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordCopies;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.stages.CaptureWindowFilter;
import org.flagos.trace.stages.TraceHeader;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.flagos.trace.vendors.Vendors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A vendor's own stages run between API naming and the join, in both thread layouts: a stage that
 * remaps every correlation id (as MSPTI's remap does) changes the ids the join, the arrows and the
 * trace see, and nothing else.
 */
class VendorStagesTest {
    /** Moves every correlation id up by 2^40: the remap a vendor with wide ids might do. */
    private static final EventHandler<TraceRecord> REMAP = (record, sequence, endOfBatch) -> {
        if ((record.type == RecordType.ACTIVITY || record.type == RecordType.CORRELATION_BINDING) && record.hasCorrelation()) {
            record.correlation(record.correlation() + (1L << 40));
        }
    };

    private static JsonNode replay(List<EventHandler<TraceRecord>> stages) throws Exception {
        return replay("h200-app-tiny2k", 1 << 10, stages);
    }

    private static JsonNode replay(String name, int ringSize, List<EventHandler<TraceRecord>> stages) throws Exception {
        NameTable names = new NameTable();
        ActivityBufferDecoder decoder = Vendors.decoderFor(1).create(KernelNameFile.read(Captures.names(name)), names, List.of());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        DecodeStats stats = new DecodeStats();
        try (CapturePipeline pipeline = CapturePipeline.builder().names(names).apiNames(decoder.apiNames()).vendorStages(stages)
                .window(CaptureWindowFilter.unbounded()).header(new TraceHeader("t", List.of(), null, Map.of(), "p", 1))
                .format(TraceFormat.JSON).out(out).decodeStats(stats).producers(ProducerType.SINGLE).ringSize(ringSize).build()) {
            FltrbufFrames frames = new FltrbufFrames(CaptureBytes.load(Captures.capture(name)), name);
            while (frames.next()) {
                decoder.decode(frames.payload(), pipeline, stats);
            }
            pipeline.finish();
        }
        return TraceJson.MAPPER.readTree(out.toByteArray());
    }

    @ParameterizedTest
    @ValueSource(strings = {"one-per-stage", "shared"})
    void aVendorStageRemapsWhatTheJoinAndTheWriterSee(String threading) throws Exception {
        String before = System.getProperty("flagtrace.threading");
        System.setProperty("flagtrace.threading", threading);
        try {
            JsonNode plain = replay(List.of());
            JsonNode remapped = replay(List.of(REMAP));
            int compared = 0;
            for (int i = 0; i < plain.get("traceEvents").size(); i++) {
                JsonNode a = plain.get("traceEvents").get(i);
                JsonNode b = remapped.get("traceEvents").get(i);
                if (a.path("args").has("correlation")) {
                    assertEquals(a.get("args").get("correlation").asLong() + (1L << 40), b.get("args").get("correlation").asLong());
                    assertEquals(a.get("args").path("External id"), b.get("args").path("External id"), "the join used the remapped ids");
                    compared++;
                } else if ("ac2g".equals(a.path("cat").asText())) {
                    assertEquals(a.get("id").asLong() + (1L << 40), b.get("id").asLong());
                } else {
                    assertEquals(a, b);
                }
            }
            assertTrue(compared > 1000, "compared " + compared);
            assertEquals(plain.get("flagtrace").get("without_external_id"), remapped.get("flagtrace").get("without_external_id"));
        } finally {
            if (before == null) {
                System.clearProperty("flagtrace.threading");
            } else {
                System.setProperty("flagtrace.threading", before);
            }
        }
    }

    /** Parks every API call (the MSPTI remap's way) and releases what it holds on every seventh slot. */
    private static final class ParkCalls implements EventHandler<TraceRecord> {
        private final RecordCopies copies = new RecordCopies();
        private final List<TraceRecord> held = new ArrayList<>();
        private long slots;

        @Override
        public void onEvent(TraceRecord record, long sequence, boolean endOfBatch) {
            if (record.type == RecordType.ACTIVITY && !record.kind.isDevice()) {
                held.add(copies.copyOf(record, sequence));
                record.parked = true;
            }
            if (++slots % 7 == 0 || record.type == RecordType.END_OF_CAPTURE) {
                for (TraceRecord copy : held) {
                    record.release(copy);
                    copies.released(copy, sequence);
                }
                held.clear();
            }
        }
    }

    private static List<String> sorted(JsonNode events) {
        List<String> out = new ArrayList<>();
        events.forEach(e -> out.add(e.toString()));
        Collections.sort(out);
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"one-per-stage", "shared"})
    void callsParkedAndReleasedInFrontOfTheJoinAreJoinedAndWrittenOnce(String threading) throws Exception {
        String before = System.getProperty("flagtrace.threading");
        System.setProperty("flagtrace.threading", threading);
        try {
            JsonNode plain = replay(List.of());
            JsonNode parked = replay(List.of(new ParkCalls()));
            assertEquals(sorted(plain.get("traceEvents")), sorted(parked.get("traceEvents")),
                    "the same events, External ids included; only their order in the file differs");
            assertEquals(plain.get("flagtrace").get("without_external_id"), parked.get("flagtrace").get("without_external_id"));
            assertTrue(parked.get("flagtrace").get("decoded").get("cuda_runtime").asLong() > 1000);
            // Past RecordCopies.REUSE_DISTANCE slots, in the largest ring allowed: the copies are reused.
            JsonNode longPlain = replay("h200-tiny30k", RecordCopies.REUSE_DISTANCE, List.of());
            JsonNode longParked = replay("h200-tiny30k", RecordCopies.REUSE_DISTANCE, List.of(new ParkCalls()));
            assertEquals(sorted(longPlain.get("traceEvents")), sorted(longParked.get("traceEvents")));
        } finally {
            if (before == null) {
                System.clearProperty("flagtrace.threading");
            } else {
                System.setProperty("flagtrace.threading", before);
            }
        }
    }

    @Test
    void aRingLargerThanTheCopiesReuseDistanceIsRefused() throws Exception {
        NameTable names = new NameTable();
        ActivityBufferDecoder decoder = Vendors.decoderFor(1).create(KernelNameFile.read(Captures.names("h200-app")), names, List.of());
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> CapturePipeline.builder()
                .names(names).apiNames(decoder.apiNames())
                .window(CaptureWindowFilter.unbounded()).header(new TraceHeader("t", List.of(), null, Map.of(), "p", 1))
                .format(TraceFormat.JSON).out(new ByteArrayOutputStream()).decodeStats(new DecodeStats())
                .producers(ProducerType.SINGLE).ringSize(RecordCopies.REUSE_DISTANCE * 2).build());
        assertTrue(refused.getMessage().contains("no ring may be larger"), refused.getMessage());
    }
}
