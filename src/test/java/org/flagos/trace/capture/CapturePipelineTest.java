package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.dsl.ProducerType;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordCopies;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.stages.CaptureWindowFilter;
import org.flagos.trace.testing.UnitTrace;
import org.junit.jupiter.api.Test;

/**
 * {@link CapturePipeline} on its own: host ops published from a user thread into a ring of 8 slots, many more than
 * fit, every one reaches the trace once, in its window, none lost (those that found the ring full were kept aside);
 * a ring that is not a power of two, one larger than the stages' copies allow, or a missing part, is refused before
 * any thread starts; a stage that fails makes finish() say so in one line.
 */
class CapturePipelineTest {
    private static final long BASE = UnitTrace.BASE;
    private static final ObjectMapper JSON = new ObjectMapper();

    private static CapturePipeline.Builder builder(ByteArrayOutputStream out) {
        return CapturePipeline.builder().names(new NameTable()).apiNames(UnitTrace.LAUNCH_NAMES).vendorStages(List.of())
                .window(new CaptureWindowFilter(BASE, BASE + 1_000_000_000L))
                .header(UnitTrace.header(Map.of())).format(TraceFormat.JSON).out(out)
                .decodeStats(new DecodeStats()).producers(ProducerType.MULTI);
    }

    @Test
    void everyHostOpReachesTheTraceOnceThroughARingTooSmallForThem() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int ops = 500;
        try (CapturePipeline pipeline = builder(out).ringSize(8).build()) {
            pipeline.expectNoDeviceRecords();
            for (int i = 0; i < ops; i++) {
                pipeline.publish(new HostOp(String.format("op-%04d", i), new ExternalId(i), 7, BASE + 1_000 + i * 100L,
                        BASE + 1_050 + i * 100L));
            }
            pipeline.publish(new HostOp("outside", new ExternalId(ops), 7, BASE + 2_000_000_000L, BASE + 2_000_000_100L));
            pipeline.finish();
            assertEquals(ops, pipeline.accounting().hostOps(), pipeline.accounting().lines().toString());
            assertEquals(1, pipeline.accounting().droppedHostOps(), "the op outside the window");
            assertTrue(pipeline.accounting().opsSpilled() <= ops);
        }
        JsonNode trace = JSON.readTree(out.toByteArray());
        List<String> names = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("cpu_op".equals(e.path("cat").asText())) {
                names.add(e.get("name").asText());
                assertEquals(0.05, e.get("dur").asDouble(), 1e-9, e.toString());
            }
        }
        List<String> want = new ArrayList<>();
        for (int i = 0; i < ops; i++) {
            want.add(String.format("op-%04d", i));
        }
        names.sort(null);
        assertEquals(want, names, "each op once, none lost");
    }

    @Test
    void aRingOfABadSizeOrAMissingPartIsRefusedBeforeAnyThreadStarts() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> builder(out).ringSize(12).build());
        assertEquals("ring of 12 slots: the ring's size must be a power of two", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> builder(out).ringSize(0).build());
        assertEquals("ring of 0 slots: the ring's size must be a power of two", e.getMessage());
        int tooBig = RecordCopies.REUSE_DISTANCE * 2;
        e = assertThrows(IllegalArgumentException.class, () -> builder(out).ringSize(tooBig).build());
        assertEquals("ring of " + tooBig + " slots: stages reuse the copies they park after " + RecordCopies.REUSE_DISTANCE
                + " slots, so no ring may be larger", e.getMessage());
        NullPointerException n = assertThrows(NullPointerException.class, () -> builder(out).format(null).build());
        assertEquals("format", n.getMessage());
        assertEquals(0, out.size(), "nothing written");
    }

    @Test
    @org.junit.jupiter.api.Timeout(120) // a safety net against a hang, not a timing assert
    void aFailingStageMakesFinishSaySoInOneLine() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        EventHandler<TraceRecord> failing = (record, sequence, endOfBatch) -> {
            throw new IllegalStateException("the stage broke");
        };
        CapturePipeline pipeline = builder(out).vendorStages(List.of(failing)).ringSize(8).build();
        try (pipeline) {
            pipeline.publish(new HostOp("op", new ExternalId(1), 7, BASE + 1_000, BASE + 2_000));
            CaptureFailedException e = assertThrows(CaptureFailedException.class, pipeline::finish);
            assertTrue(e.getMessage().startsWith("writing the trace failed: ") && !e.getMessage().contains("\n"), e.getMessage());
            assertTrue(e.getCause() instanceof IllegalStateException, String.valueOf(e.getCause()));
        }
    }
}
