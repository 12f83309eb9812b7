package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.cli.TestDevices;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.ingest.OpsJsonlReader;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The real H200 capture of every kind (captures/h200-kinds/) against CUPTI's own decoding of the
 * same records (its truth file): every synchronization, overhead record and graph record the
 * capture holds inside its window is in the trace with the values CUPTI gave. The NVTX and memory
 * records of that capture (MARKER, MARKER_DATA, MEMORY2) are not decoded on this branch: they are
 * taken out of the buffers first (sizes from the capture's offsetof table), as a record of unknown
 * size would end a buffer's walk.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class H200KindsReplayTest {
    private static final String NAME = "h200-kinds/h200-kinds";
    private static final Map<Integer, Integer> NOT_DECODED_HERE = Map.of(12, 56, 13, 40, 49, 128);
    private static final String[] SYNC_NAMES = {"Unknown Sync", "Event Sync", "Stream Wait Event", "Stream Sync", "Context Sync"};

    private TraceJson.Replayed trace;
    private final List<JsonNode> truth = new ArrayList<>();
    private long windowStart;
    private long windowEnd;

    @BeforeAll
    void replay() throws IOException {
        CaptureReplay.Request request = new CaptureReplay.Request(CaptureBytes.load(Captures.capture(NAME)), NAME,
                OpsJsonlReader.read(Captures.ops(NAME)), KernelNameFile.read(Captures.names(NAME)), TestDevices.h200(),
                Map.of(), NAME, withoutOtherKinds(), 1 << 12);
        trace = TraceJson.replay(request);
        for (String line : Files.readAllLines(Captures.truth(NAME))) {
            truth.add(TraceJson.MAPPER.readTree(line));
        }
        for (String line : Files.readAllLines(Captures.ops(NAME))) {
            JsonNode n = TraceJson.MAPPER.readTree(line);
            if (n.has("window_start")) {
                windowStart = n.get("window_start").asLong();
            } else if (n.has("window_end")) {
                windowEnd = n.get("window_end").asLong();
            }
        }
    }

    private static UnaryOperator<List<CaptureReplay.Frame>> withoutOtherKinds() {
        return frames -> {
            List<CaptureReplay.Frame> out = new ArrayList<>();
            for (CaptureReplay.Frame f : frames) {
                ByteBuffer b = f.payload().duplicate().order(ByteOrder.LITTLE_ENDIAN);
                ByteBuffer kept = ByteBuffer.allocate(b.remaining()).order(ByteOrder.LITTLE_ENDIAN);
                for (int pos = b.position(); pos < b.limit(); ) {
                    int kind = b.getInt(pos);
                    int size = NOT_DECODED_HERE.getOrDefault(kind, CuptiActivityKind.recordSize(kind));
                    if (size <= 0) {
                        throw new UncheckedIOException(new IOException("kind " + kind + " of unknown size"));
                    }
                    if (!NOT_DECODED_HERE.containsKey(kind)) {
                        ByteBuffer one = b.duplicate();
                        one.position(pos).limit(pos + size);
                        kept.put(one);
                    }
                    pos += size;
                }
                kept.flip();
                out.add(new CaptureReplay.Frame(f.vendor(), kept));
            }
            return out;
        };
    }

    private List<JsonNode> truthInWindow(String kind) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode t : truth) {
            if (kind.equals(t.get("kind").asText()) && t.get("start").asLong() != 0 && t.get("start").asLong() >= windowStart
                    && t.get("end").asLong() <= windowEnd) {
                out.add(t);
            }
        }
        return out;
    }

    @Test
    void everySynchronizationIsACudaSyncEventWithCuptisValues() {
        Map<Long, JsonNode> byCorrelation = new HashMap<>();
        for (JsonNode e : trace.category("cuda_sync")) {
            byCorrelation.put(e.get("args").get("correlation").asLong(), e);
        }
        List<JsonNode> syncs = truthInWindow("synchronization");
        assertTrue(syncs.size() > 0);
        assertEquals(syncs.size(), trace.category("cuda_sync").size(), "one event per record in the window");
        for (JsonNode t : syncs) {
            JsonNode e = byCorrelation.get(t.get("correlation").asLong());
            assertNotNull(e, "synchronization " + t);
            int type = t.get("type").asInt();
            assertEquals(SYNC_NAMES[type], e.get("name").asText());
            assertEquals(SYNC_NAMES[type], e.get("args").get("cuda_sync_kind").asText());
            long stream = t.get("stream").asLong();
            assertEquals(stream == 0xFFFF_FFFFL ? -1 : stream, e.get("args").get("stream").asLong());
            assertEquals(stream == 0xFFFF_FFFFL ? 1 : stream, e.get("tid").asLong(), "its stream's row, or torch's device row: " + t);
            assertEquals(t.get("context").asLong(), e.get("args").get("context").asLong());
            assertEquals(0, e.get("pid").asLong(), "the H200 is device 0");
            if (type == 1 || type == 2) {
                assertEquals(t.get("cudaEventId").asLong(), e.get("args").get("wait_on_cuda_event_id").asLong());
            }
        }
    }

    @Test
    void everyOverheadRecordIsOnTorchsOverheadRowAndSummed() {
        List<JsonNode> overhead = truthInWindow("overhead");
        assertTrue(overhead.size() > 0);
        long ns = 0;
        for (JsonNode t : overhead) {
            ns += t.get("end").asLong() - t.get("start").asLong();
        }
        assertEquals(overhead.size(), trace.category("overhead").size());
        JsonNode counted = trace.trace().get("flagtrace").get("profiler_overhead");
        assertEquals(overhead.size(), counted.get("records").asLong());
        assertEquals(ns, counted.get("ns").asLong());
    }

    @Test
    void graphRecordsCarryCuptisIdsTheirLaunchsOpAndAnArrowEach() {
        Map<String, JsonNode> device = new HashMap<>();
        for (String cat : List.of("kernel", "gpu_memcpy", "gpu_memset")) {
            for (JsonNode e : trace.category(cat)) {
                if (e.get("args").has("graph node id")) {
                    device.put(e.get("args").get("correlation").asText() + "/" + e.get("args").get("graph node id").asText(), e);
                }
            }
        }
        Map<Long, Long> launchOp = new HashMap<>();
        for (JsonNode e : trace.category("cuda_runtime")) {
            if (e.get("name").asText().startsWith("cudaGraphLaunch") && e.get("args").has("External id")) {
                launchOp.put(e.get("args").get("correlation").asLong(), e.get("args").get("External id").asLong());
            }
        }
        Map<Long, Integer> halves = new HashMap<>();
        for (JsonNode e : trace.category("ac2g")) {
            halves.merge(e.get("id").asLong(), "s".equals(e.get("ph").asText()) ? 1 : 2, Integer::sum);
        }
        int graphRecords = 0;
        for (String kind : List.of("kernel", "memcpy", "memset")) {
            for (JsonNode t : truthInWindow(kind)) {
                if (t.path("graphId").asLong(0) == 0) {
                    continue;
                }
                graphRecords++;
                long correlation = t.get("correlation").asLong();
                long node = t.get("graphNodeId").asLong();
                JsonNode e = device.get(correlation + "/" + node);
                assertNotNull(e, "graph record " + t);
                assertEquals(t.get("graphId").asLong(), e.get("args").get("graph id").asLong());
                assertEquals(launchOp.get(correlation), e.get("args").get("External id").asLong(), "the op that launched the graph");
                long id = correlation + (((node & 0xFFFFF) + 1) << 32);
                assertEquals(3, halves.getOrDefault(id, 0), "one s and one f for graph record " + t);
            }
        }
        assertEquals(graphRecords, device.size());
        assertTrue(graphRecords > 0);
        halves.forEach((id, sum) -> assertEquals(3, sum, "arrow " + id + " paired"));
    }
}
