package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * same records (its truth file): every synchronization, overhead record, graph record and device
 * memory record the capture holds inside its window is in the trace with the values CUPTI gave.
 * The capture is replayed whole, and every byte of its buffers is walked: no kind is skipped (its
 * NVTX records are drawn as ranges, {@link H200NvtxRangesTest}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class H200KindsReplayTest {
    private static final String NAME = "h200-kinds/h200-kinds";
    private static final String[] SYNC_NAMES = {"Unknown Sync", "Event Sync", "Stream Wait Event", "Stream Sync", "Context Sync"};

    private TraceJson.Replayed trace;
    private final List<JsonNode> truth = new ArrayList<>();
    private long windowStart;
    private long windowEnd;

    @BeforeAll
    void replay() throws IOException {
        CaptureReplay.Request request = CaptureReplay.Request.of(CaptureBytes.load(Captures.capture(NAME)), NAME)
                .ops(OpsJsonlReader.read(Captures.ops(NAME))).kernelNames(KernelNameFile.read(Captures.names(NAME)))
                .devices(TestDevices.h200()).ringSize(1 << 12).build();
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

    @Test
    void everyBufferIsWalkedWholeAndNoKindIsSkipped() {
        JsonNode accounting = trace.trace().get("flagtrace");
        assertEquals(0, accounting.get("undecodable_bytes").asLong());
        assertEquals(0, accounting.get("invalid_records").asLong());
        JsonNode skipped = accounting.get("skipped_vendor_kinds");
        assertEquals(List.of(), iterable(skipped.fieldNames()), "MARKER and MARKER_DATA are read now");
        long markers = truth.stream().filter(t -> t.get("kind").asText().equals("marker")).count();
        long markerData = truth.stream().filter(t -> t.get("kind").asText().equals("marker_data")).count();
        assertEquals(markers, accounting.get("decoded").get("user_annotation").asLong());
        assertEquals(markerData, accounting.get("annotations").get("attribute_records_read").asLong());
    }

    @Test
    void everyDeviceMemoryRecordIsATorchMemoryEventWithCuptisAddressBytesAndARunningTotal() {
        List<JsonNode> records = new ArrayList<>();
        for (JsonNode t : truth) {
            if ("memory2".equals(t.get("kind").asText())) {
                records.add(t);
            }
        }
        records.sort(java.util.Comparator.comparingLong(t -> t.get("timestamp").asLong()));
        List<JsonNode> events = new ArrayList<>();
        for (JsonNode e : trace.category("cpu_instant_event")) {
            if ("[memory]".equals(e.get("name").asText())) {
                events.add(e);
            }
        }
        assertTrue(records.size() > 0);
        assertEquals(records.size(), events.size(), "one [memory] event per MEMORY2 record");
        Map<String, JsonNode> byAddressAndSign = new HashMap<>();
        for (JsonNode e : events) {
            byAddressAndSign.put(e.get("args").get("Addr").asText() + "/" + Long.signum(e.get("args").get("Bytes").asLong()), e);
        }
        Map<Long, Long> total = new HashMap<>();
        for (JsonNode t : records) {
            boolean release = t.get("memoryOperationType").asInt() == 2;
            long bytes = release ? -t.get("bytes").asLong() : t.get("bytes").asLong();
            JsonNode e = byAddressAndSign.get(t.get("address").asText() + "/" + Long.signum(bytes));
            assertNotNull(e, "memory record " + t);
            boolean device = t.get("memoryKind").asInt() == 3; // CUPTI_ACTIVITY_MEMORY_KIND_DEVICE
            long deviceId = device ? t.get("device").asLong() : -1;
            assertEquals(bytes, e.get("args").get("Bytes").asLong(), "torch's sign: a release is negative");
            assertEquals(deviceId, e.get("args").get("Device Id").asLong());
            assertEquals(device ? 1 : 0, e.get("args").get("Device Type").asInt(), "CUDA, or pinned host memory as CPU");
            long after = total.merge(deviceId, bytes, Long::sum);
            assertEquals(after, e.get("args").get("Total Allocated").asLong(), "the running total of its device after " + t);
        }
    }

    private static List<String> iterable(java.util.Iterator<String> names) {
        List<String> out = new ArrayList<>();
        names.forEachRemaining(out::add);
        return out;
    }
}
