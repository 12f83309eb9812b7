package org.flagos.trace.stages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.io.ByteArrayOutputStream;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.cli.TestDevices;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.ingest.OpsJsonlReader;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.model.EventKind;
import org.junit.jupiter.api.Test;

/**
 * {@link CaptureAccounting} on its own: a capture with nothing counted writes the fixed blocks with zeros (the seed's
 * five kinds in each, in kind order) and none of the optional ones, and says three lines; counts handed over appear in
 * their block and their line, exactly: a kind past the seed's once a record of it was decoded, skipped vendor kinds by
 * number, ops open at stop, the vendor's drops, the ring's waits and ops kept aside, device memory, NVTX annotations,
 * and the notes last. The bundled h200-app-tiny2k capture replayed: the block in its trace is the accounting's, and
 * each seed kind decoded, less those dropped outside the window, is that kind's events in the trace.
 */
class CaptureAccountingTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> SEED = List.of("kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime", "cuda_driver");

    private static JsonNode written(CaptureAccounting a) throws IOException {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            g.writeStartObject();
            a.write(g);
            g.writeEndObject();
        }
        return JSON.readTree(out.toString());
    }

    private static List<String> keys(JsonNode node) {
        List<String> keys = new ArrayList<>();
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            keys.add(it.next());
        }
        return keys;
    }

    private static List<String> with(List<String> first, String... more) {
        List<String> all = new ArrayList<>(first);
        all.addAll(List.of(more));
        return all;
    }

    @Test
    void nothingCountedWritesZerosAndNoOptionalBlock() throws IOException {
        CaptureAccounting a = new CaptureAccounting(new DecodeStats());
        JsonNode j = written(a);
        assertEquals(List.of("decoded", "skipped_vendor_kinds", "invalid_records", "undecodable_bytes", "unnamed_kernels",
                "incomplete_records", "dropped_outside_window", "without_external_id", "joined_after_arrival",
                "duplicate_bindings", "conflicting_bindings", "reorder_horizon", "device_records_without_op",
                "api_names_from_table", "api_names_generic", "vendor_dropped", "ring_full", "notes"), keys(j));
        assertEquals(with(SEED, "correlation_bindings", "host_ops"), keys(j.get("decoded")));
        assertEquals(with(SEED, "cpu_op"), keys(j.get("dropped_outside_window")));
        assertEquals(SEED, keys(j.get("without_external_id")));
        for (JsonNode block : List.of(j.get("decoded"), j.get("dropped_outside_window"), j.get("without_external_id"),
                j.get("reorder_horizon"), j.get("ring_full"))) {
            for (JsonNode v : block) {
                assertEquals(0, v.asLong(), block.toString());
            }
        }
        assertEquals(0, j.get("skipped_vendor_kinds").size());
        assertEquals(0, j.get("notes").size());
        assertEquals(List.of(
                "decoded: kernel=0 gpu_memcpy=0 gpu_memset=0 cuda_runtime=0 cuda_driver=0 bindings=0 host_ops=0",
                "dropped outside the capture window: kernel=0 gpu_memcpy=0 gpu_memset=0 cuda_runtime=0 cuda_driver=0 cpu_op=0",
                "without External id (launched outside any op): kernel=0 gpu_memcpy=0 gpu_memset=0 cuda_runtime=0 cuda_driver=0"),
                a.lines());
    }

    @Test
    void countsHandedOverAppearInTheirBlockAndLine() throws IOException {
        DecodeStats decode = new DecodeStats();
        for (int i = 0; i < 3; i++) {
            decode.countPublished(EventKind.KERNEL);
        }
        decode.countPublished(EventKind.MARKER);
        decode.countBinding();
        decode.countBinding();
        decode.countSkipped(42);
        decode.countSkipped(42);
        decode.countSkipped(7);
        decode.unnamedKernel();
        decode.incomplete();
        CaptureAccounting a = new CaptureAccounting(decode);
        a.hostOps(5);
        a.hostOpsOpenAtStop(4);
        a.vendorDropped(7);
        a.ringFull(3, 2);
        a.memory(6, 1, 2, 9);
        a.annotations(10, 11, 12, 13, 14, 15, 16, 17);
        a.note("first note");
        a.note("second note");

        JsonNode j = written(a);
        assertEquals(with(SEED, "user_annotation", "correlation_bindings", "host_ops"), keys(j.get("decoded")),
                "a kind past the seed's is listed once a record of it was decoded; cuda_sync, with none, is not");
        assertEquals(3, j.get("decoded").get("kernel").asLong());
        assertEquals(1, j.get("decoded").get("user_annotation").asLong());
        assertEquals(2, j.get("decoded").get("correlation_bindings").asLong());
        assertEquals(5, j.get("decoded").get("host_ops").asLong());
        assertEquals(JSON.valueToTree(Map.of("7", 1, "42", 2)), j.get("skipped_vendor_kinds"));
        assertEquals(1, j.get("unnamed_kernels").asLong());
        assertEquals(1, j.get("incomplete_records").asLong());
        assertEquals(4, j.get("dropped_outside_window").get("cpu_op_open_at_stop").asLong());
        assertEquals(7, j.get("vendor_dropped").asLong());
        assertEquals(JSON.readTree("{\"producer_waits\":3,\"ops_kept_aside\":2}"), j.get("ring_full"));
        assertEquals(JSON.readTree("{\"events\":6,\"without_thread\":1,\"releases_of_unseen_allocations\":2,\"most_held\":9}"),
                j.get("memory"));
        assertEquals(with(CaptureAccounting.ANNOTATION_KEYS, "attribute_records_read"), keys(j.get("annotations")));
        assertEquals(17, j.get("annotations").get("device_records_in_ranges").asLong());
        assertEquals(JSON.readTree("[\"first note\",\"second note\"]"), j.get("notes"));
        assertFalse(j.has("gpu_annotations") || j.has("unified_memory") || j.has("host_clock") || j.has("profiler_overhead"));

        List<String> lines = a.lines();
        assertEquals("decoded: kernel=3 gpu_memcpy=0 gpu_memset=0 cuda_runtime=0 cuda_driver=0 user_annotation=1 bindings=2"
                + " host_ops=5", lines.get(0));
        assertEquals("dropped outside the capture window: kernel=0 gpu_memcpy=0 gpu_memset=0 cuda_runtime=0 cuda_driver=0"
                + " user_annotation=0 cpu_op=0 cpu_op_open_at_stop=4", lines.get(1));
        assertTrue(lines.contains("device memory events: 6 (1 on thread 0: no runtime call seen; 2 releases of memory allocated"
                + " before the capture)"), lines.toString());
        assertTrue(lines.contains("kernels without a name: 1 distinct, kept as <unresolved kernel 0x...>; the capture has no"
                + " kernel name table (NAME.names.tsv beside it, or --names)"), lines.toString());
        assertTrue(lines.contains("records without timestamps (work still running when the vendor flushed, at stop): 1, left out"),
                lines.toString());
        assertTrue(lines.contains("skipped records of kinds not decoded (vendor kind=count): {7=1, 42=2}"), lines.toString());
        assertTrue(lines.contains("the vendor dropped 7 records (its activity buffers overflowed): they are in no trace"),
                lines.toString());
        assertTrue(lines.contains("ring full: 2 host ops were kept aside and published at the end (none lost); the producer"
                + " waited 3 times for a slot"), lines.toString());
        assertTrue(lines.contains("annotation ranges (NVTX): 10 ranges, 11 marks; unpaired: ends_without_start=12"
                + " duplicate_starts=13 never_closed=14 open_at_capacity=15; outside every op, 16 calls and 17 device records"
                + " counted for their range"), lines.toString());
        assertEquals(List.of("first note", "second note"), lines.subList(lines.size() - 2, lines.size()), "the notes last");
        assertEquals(12, lines.size());
    }

    @Test
    void aReplaysTraceHoldsItsAccountingAndItsCountsAddUp() throws Exception {
        String capture = "h200-app-tiny2k";
        CaptureReplay.Request request = CaptureReplay.Request.of(CaptureBytes.load(Captures.capture(capture)), capture)
                .ops(OpsJsonlReader.read(Captures.ops(capture))).kernelNames(KernelNameFile.read(Captures.names(capture)))
                .devices(TestDevices.h200()).ringSize(1 << 12).build();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CaptureAccounting a = CaptureReplay.run(request, out).accounting();
        JsonNode trace = JSON.readTree(out.toByteArray());
        JsonNode block = trace.get("flagtrace");
        JsonNode j = written(a);
        for (String key : keys(j)) {
            assertEquals(j.get(key), block.get(key), key);
        }
        Map<String, Long> inTrace = new java.util.HashMap<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("X".equals(e.path("ph").asText())) {
                inTrace.merge(e.path("cat").asText(), 1L, Long::sum);
            }
        }
        assertTrue(j.get("decoded").get("kernel").asLong() > 1000, j.toString());
        for (String kind : SEED) {
            assertEquals(inTrace.getOrDefault(kind, 0L),
                    j.get("decoded").get(kind).asLong() - j.get("dropped_outside_window").get(kind).asLong(), kind);
        }
        assertEquals(inTrace.getOrDefault("cpu_op", 0L), j.get("decoded").get("host_ops").asLong(), "host ops");
        assertEquals(0, j.get("invalid_records").asLong());
        assertEquals(0, j.get("undecodable_bytes").asLong());
        assertTrue(a.lines().get(0).startsWith("decoded: kernel=" + j.get("decoded").get("kernel").asLong() + " "), a.lines().get(0));
    }
}
