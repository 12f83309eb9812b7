package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
 * The real H200 capture with managed memory (captures/h200-managed/: the kinds capture plus
 * cudaMallocManaged written on the host, touched by a kernel, read back, prefetched both ways and
 * copied) against CUPTI's own decoding of the same records: every UNIFIED_MEMORY_COUNTER record is on
 * device 0's Unified Memory row with CUPTI's times, bytes, address, cause or access type, or counted
 * outside the window; every other record decodes too (before kind 25 was known, the walk of the
 * buffer holding them stopped at the first and 363,536 bytes were undecodable).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class H200ManagedReplayTest {
    private static final String NAME = "h200-managed/h200-managed";
    private static final int UNIFIED_MEMORY_ROW = 0x7FFF_FFFE;
    private static final Map<Integer, String> NAMES = Map.of(1, "Unified Memory memcpy HtoD", 2, "Unified Memory memcpy DtoH",
            8, "Unified Memory memcpy DtoD", 3, "CPU page fault", 4, "GPU page fault group");
    private static final String[] CAUSES = {"unknown", "user", "coherence", "prefetch", "eviction", "access counters"};
    private static final String[] ACCESS = {"unknown", "read", "write", "atomic", "prefetch"};

    private TraceJson.Replayed trace;
    private final List<JsonNode> truth = new ArrayList<>();
    private long windowStart;
    private long windowEnd;
    private long base;

    @BeforeAll
    void replay() throws IOException {
        CaptureReplay.Request request = CaptureReplay.Request.of(CaptureBytes.load(Captures.capture(NAME)), NAME)
                .ops(OpsJsonlReader.read(Captures.ops(NAME))).kernelNames(KernelNameFile.read(Captures.names(NAME)))
                .devices(TestDevices.h200()).ringSize(1 << 12).build();
        trace = TraceJson.replay(request);
        base = trace.trace().get("baseTimeNanoseconds").asLong();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(Captures.open(Captures.truth(NAME)), StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                truth.add(TraceJson.MAPPER.readTree(line));
            }
        }
        try (BufferedReader in = new BufferedReader(new InputStreamReader(Captures.open(Captures.ops(NAME)), StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                JsonNode n = TraceJson.MAPPER.readTree(line);
                if (n.has("window_start")) {
                    windowStart = n.get("window_start").asLong();
                } else if (n.has("window_end")) {
                    windowEnd = n.get("window_end").asLong();
                }
            }
        }
    }

    private List<JsonNode> unifiedMemoryTruth() {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode t : truth) {
            if ("unified_memory".equals(t.get("kind").asText())) {
                out.add(t);
            }
        }
        return out;
    }

    private static boolean lasting(int counterKind) {
        return counterKind != 3 && counterKind != 5 && counterKind != 7;
    }

    private static String hex(long v) {
        return "0x" + Long.toHexString(v);
    }

    /** The event CUPTI's record becomes, as text: name, row, ts, dur, args in their order. */
    private String expected(JsonNode t) {
        int k = t.get("counterKind").asInt();
        long start = t.get("start").asLong();
        StringBuilder s = new StringBuilder(NAMES.get(k)).append(" | 0/").append(UNIFIED_MEMORY_ROW).append(" | ")
                .append(BigDecimal.valueOf(start - base, 3).toPlainString());
        if (lasting(k)) {
            s.append(" dur ").append(BigDecimal.valueOf(t.get("end").asLong() - start, 3).toPlainString());
        }
        Map<String, Object> args = new java.util.LinkedHashMap<>();
        long value = t.get("value").asLong();
        int flags = t.get("flags").asInt();
        switch (k) {
            case 3:
                args.put("PC", hex(value));
                args.put("address", hex(t.get("address").asLong()));
                args.put("access type", ACCESS[flags]);
                break;
            case 4:
                args.put("fault groups", value);
                args.put("address", hex(t.get("address").asLong()));
                args.put("access type", ACCESS[flags]);
                args.put("src id", t.get("srcId").asLong());
                break;
            default:
                args.put("bytes", value);
                args.put("address", hex(t.get("address").asLong()));
                args.put("migration cause", CAUSES[flags]);
                args.put("src id", t.get("srcId").asLong());
                args.put("dst id", t.get("dstId").asLong());
        }
        return s.append(" | ").append(args).toString();
    }

    private static String drawn(JsonNode e) {
        StringBuilder s = new StringBuilder(e.get("name").asText()).append(" | ").append(e.get("pid").asLong()).append('/')
                .append(e.get("tid").asLong()).append(" | ").append(e.get("ts").decimalValue().setScale(3).toPlainString());
        if ("X".equals(e.get("ph").asText())) {
            s.append(" dur ").append(e.get("dur").decimalValue().setScale(3).toPlainString());
        } else {
            assertEquals("i", e.get("ph").asText(), e.toString());
            assertEquals("t", e.get("s").asText(), "a thread-scoped instant: " + e);
        }
        Map<String, Object> args = new java.util.LinkedHashMap<>();
        e.get("args").fields().forEachRemaining(f -> args.put(f.getKey(), f.getValue().isNumber() ? (Object) f.getValue().asLong()
                : f.getValue().asText()));
        return s.append(" | ").append(args).toString();
    }

    @Test
    void everyUnifiedMemoryRecordIsDrawnWithCuptisValuesOrCountedOutsideTheWindow() {
        Map<String, Integer> expected = new TreeMap<>();
        long outside = 0;
        for (JsonNode t : unifiedMemoryTruth()) {
            int k = t.get("counterKind").asInt();
            long start = t.get("start").asLong();
            long end = lasting(k) ? t.get("end").asLong() : start;
            if (start >= windowStart && end <= windowEnd) {
                expected.merge(expected(t), 1, Integer::sum);
            } else {
                outside++;
            }
        }
        Map<String, Integer> actual = new TreeMap<>();
        for (JsonNode e : trace.category("unified_memory")) {
            actual.merge(drawn(e), 1, Integer::sum);
        }
        assertEquals(3495, unifiedMemoryTruth().size());
        assertEquals(expected, actual);
        assertEquals(outside, trace.trace().get("flagtrace").get("dropped_outside_window").get("unified_memory").asLong());
        assertEquals(0, outside, "the managed section lies inside the window");
    }

    @Test
    void theSummaryBlockHoldsTheTotalsPerDirectionAndThePageFaults() {
        long gpuFaultGroups = 0;
        for (JsonNode t : unifiedMemoryTruth()) {
            if (t.get("counterKind").asInt() == 4) {
                gpuFaultGroups += t.get("value").asLong();
            }
        }
        assertEquals("{\"events\":3495,\"htod\":{\"transfers\":2583,\"bytes\":138412032},"
                + "\"dtoh\":{\"transfers\":416,\"bytes\":134217728},\"dtod\":{\"transfers\":0,\"bytes\":0},"
                + "\"cpu_page_faults\":384,\"gpu_page_fault_events\":112,\"gpu_page_fault_groups\":" + gpuFaultGroups
                + ",\"thrashing\":0,\"throttling\":0,\"remote_maps\":0}",
                trace.trace().get("flagtrace").get("unified_memory").toString());
        assertTrue(trace.result().accounting().lines().contains("unified memory (drawn on each device's Unified Memory row):"
                + " HtoD 2583 transfers, 138412032 bytes; DtoH 416 transfers, 134217728 bytes; page faults: CPU 384, GPU 112 events ("
                + gpuFaultGroups + " fault groups)"), String.join("\n", trace.result().accounting().lines()));
    }

    @Test
    void theUnifiedMemoryRowIsLabelledAndSortedAfterTheStreams() {
        String label = null;
        long sortIndex = Long.MIN_VALUE;
        long highestStream = Long.MIN_VALUE;
        for (JsonNode e : trace.events()) {
            if (!"M".equals(e.path("ph").asText()) || e.get("pid").asLong() != 0) {
                continue;
            }
            if (e.get("tid").asLong() == UNIFIED_MEMORY_ROW) {
                if ("thread_name".equals(e.get("name").asText())) {
                    label = e.get("args").get("name").asText();
                } else if ("thread_sort_index".equals(e.get("name").asText())) {
                    sortIndex = e.get("args").get("sort_index").asLong();
                }
            } else if ("thread_sort_index".equals(e.get("name").asText())) {
                highestStream = Math.max(highestStream, e.get("args").get("sort_index").asLong());
            }
        }
        assertEquals("Unified Memory", label);
        assertTrue(sortIndex > highestStream, sortIndex + " after " + highestStream);
    }

    @Test
    void everyOtherRecordDecodesNowAndTheManagedCopiesAreNamedAsTorchNamesThem() {
        JsonNode accounting = trace.trace().get("flagtrace");
        assertEquals(0, accounting.get("undecodable_bytes").asLong());
        assertEquals(0, accounting.get("invalid_records").asLong());
        assertEquals("{}", accounting.get("skipped_vendor_kinds").toString());
        Map<String, Long> byKind = new HashMap<>();
        for (JsonNode t : truth) {
            byKind.merge(t.get("kind").asText(), 1L, Long::sum);
        }
        Map<String, String> category = Map.of("kernel", "kernel", "memcpy", "gpu_memcpy", "memset", "gpu_memset",
                "runtime", "cuda_runtime", "driver", "cuda_driver", "synchronization", "cuda_sync", "overhead", "overhead",
                "memory2", "cpu_instant_event", "marker", "user_annotation", "unified_memory", "unified_memory");
        category.forEach((kind, cat) -> assertEquals(byKind.get(kind).longValue(), accounting.get("decoded").get(cat).asLong(), kind));
        assertEquals(byKind.get("external_correlation").longValue(), accounting.get("decoded").get("correlation_bindings").asLong());
        assertEquals(byKind.get("marker_data").longValue(), accounting.get("annotations").get("attribute_records_read").asLong());
        Map<String, Long> managedCopies = new TreeMap<>();
        for (JsonNode e : trace.category("gpu_memcpy")) {
            if (e.get("name").asText().contains("Managed")) {
                managedCopies.merge(e.get("name").asText() + " " + e.get("args").get("bytes").asLong(), 1L, Long::sum);
            }
        }
        assertEquals(Map.of("Memcpy DtoD (Device -> Managed) 4194304", 1L, "Memcpy DtoD (Managed -> Device) 4194304", 1L),
                managedCopies, "the MEMCPY records with srcKind or dstKind 5 (MANAGED)");
        JsonNode annotations = accounting.get("annotations");
        assertEquals(7, annotations.get("ranges").asLong());
        assertEquals(1, annotations.get("marks").asLong());
        for (JsonNode e : trace.category("user_annotation")) {
            assertTrue(e.get("name").asText().startsWith("nvtx::"), "named from the capture's strings: " + e);
        }
    }

    @Test
    void noUnifiedMemoryRecordJoinsAnOpOrDrawsAnArrow() {
        JsonNode accounting = trace.trace().get("flagtrace");
        assertEquals(0, accounting.get("without_external_id").get("unified_memory").asLong(), "no call launched them: not unjoined");
        for (JsonNode e : trace.category("ac2g")) {
            assertTrue(e.get("tid").asLong() != UNIFIED_MEMORY_ROW, e.toString());
        }
        assertNotNull(accounting.get("unified_memory"));
    }
}
