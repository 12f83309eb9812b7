package org.flagos.trace.encoders;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.flagos.trace.model.CopyKind;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.MemoryKind;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.stages.CaptureAccounting;
import org.flagos.trace.stages.CaptureWindowFilter;
import org.flagos.trace.stages.ExternalCorrelationJoin;
import org.flagos.trace.stages.NameStage;
import org.flagos.trace.stages.StagesBeforeWalk;
import org.flagos.trace.stages.TraceHeader;
import org.flagos.trace.stages.TraceWalk;
import org.flagos.trace.testing.TraceJson;
import org.flagos.trace.testing.UnitTrace;
import org.junit.jupiter.api.Test;

/**
 * The name stage, the trace walk and the JSON sink alone, fed hand-made records in the order a ring
 * would deliver them.
 */
class ChromeJsonSinkTest {
    private static final long BASE = UnitTrace.BASE;
    private final NameTable names = new NameTable();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final CaptureWindowFilter window = UnitTrace.window();
    private final NameStage apiNames = new NameStage(UnitTrace.LAUNCH_NAMES, names);
    private final TraceWalk writer = walk(out,
            UnitTrace.header(Map.of("note", "N/A", "bandwidth", "8e-05")),
            new CaptureAccounting(new DecodeStats()), new ExternalCorrelationJoin());

    private TraceWalk walk(ByteArrayOutputStream into, TraceHeader header, CaptureAccounting accounting,
                           ExternalCorrelationJoin join) {
        return new TraceWalk(new ChromeJsonSink(into, names, header), names, header, accounting, StagesBeforeWalk.of(apiNames, join, window));
    }

    /** One slot through the stages this test has: names, then the walk. */
    private void deliver(TraceWalk walk, TraceRecord r, long sequence) {
        apiNames.onEvent(r, sequence, true);
        walk.onEvent(r, sequence, true);
    }
    private final List<TraceRecord> records = new ArrayList<>();

    private TraceRecord record(RecordType type, EventKind kind, long start, long end) {
        TraceRecord r = new TraceRecord();
        r.clear();
        r.type = type;
        r.kind = kind;
        r.startNs = BASE + start;
        r.endNs = BASE + end;
        records.add(r);
        return r;
    }

    private JsonNode run() throws Exception {
        record(RecordType.END_OF_CAPTURE, null, 0, 0);
        long sequence = 0;
        for (TraceRecord r : records) {
            deliver(writer, r, sequence++);
        }
        writer.awaitFinished();
        assertEquals(null, writer.failure());
        // Big decimals keep the text's scale, so "1.000" can be told from "1.0".
        return TraceJson.MAPPER.copy().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).readTree(out.toByteArray());
    }

    private static List<JsonNode> cat(JsonNode trace, String category) {
        List<JsonNode> found = new ArrayList<>();
        trace.get("traceEvents").forEach(e -> {
            if (category.equals(e.path("cat").asText())) {
                found.add(e);
            }
        });
        return found;
    }

    /** A vendor without grid, block, registers, context or callback ids: those args are left out, never zeros. */
    @Test
    void fieldsAVendorDoesNotReportAreLeftOut() throws Exception {
        TraceRecord launch = record(RecordType.ACTIVITY, EventKind.RUNTIME, 2_000, 2_500);
        launch.nameId = names.intern("aclnnMatmul");
        launch.correlation(7);
        TraceRecord kernel = record(RecordType.ACTIVITY, EventKind.KERNEL, 3_001, 4_610);
        kernel.nameId = names.intern("MatMulV2_1");
        kernel.correlation(7);
        kernel.externalId(4);
        TraceRecord copy = record(RecordType.ACTIVITY, EventKind.MEMCPY, 5_000, 6_088);
        copy.clearCorrelation();
        copy.copyKind = CopyKind.HTOD;
        JsonNode trace = run();
        List<String> apiKeys = new ArrayList<>();
        cat(trace, "cuda_runtime").get(0).get("args").fieldNames().forEachRemaining(apiKeys::add);
        assertEquals(List.of("correlation"), apiKeys, "no cbid the vendor never had");
        List<String> keys = new ArrayList<>();
        cat(trace, "kernel").get(0).get("args").fieldNames().forEachRemaining(keys::add);
        assertEquals(List.of("External id", "device", "stream", "correlation"), keys);
        JsonNode m = cat(trace, "gpu_memcpy").get(0);
        assertEquals("Memcpy HtoD", m.get("name").asText(), "no memory kinds: the short form");
        assertFalse(m.get("args").has("bytes"));
        assertEquals(2, cat(trace, "ac2g").size());
    }

    @Test
    void writesEventsFlowsOpsAndRowsAsTorchDoes() throws Exception {
        TraceRecord op = record(RecordType.HOST_OP, null, 1_500, 9_000);
        op.nameId = names.intern("app::mm");
        op.externalId(0);
        op.threadId = 7;
        TraceRecord launch = record(RecordType.ACTIVITY, EventKind.RUNTIME, 2_000, 2_500);
        launch.nameId = names.intern("cudaLaunchKernel");
        launch.cbid = 211;
        launch.present(RecordField.CBID);
        launch.correlation(80);
        launch.processId = 4242;
        launch.threadId = 99;
        launch.externalId(0);
        TraceRecord kernel = record(RecordType.ACTIVITY, EventKind.KERNEL, 3_001, 4_610);
        kernel.nameId = names.intern("relu(float*, int)");
        kernel.correlation(80);
        kernel.externalId(0);
        kernel.device = 0;
        kernel.stream = 7;
        kernel.gridX = 256;
        kernel.gridY = kernel.gridZ = 1;
        kernel.blockX = 256;
        kernel.blockY = kernel.blockZ = 1;
        kernel.blocksPerSm = 256 / 132f;
        kernel.warpsPerSm = kernel.blocksPerSm * 256 / 32;
        kernel.occupancyPercent = 24;
        kernel.presentAll(RecordField.CUDA_KERNEL);
        TraceRecord copy = record(RecordType.ACTIVITY, EventKind.MEMCPY, 5_000, 6_088);
        copy.correlation(81); // its launch is not in the trace: no arrow
        copy.copyKind = CopyKind.HTOD;
        copy.srcKind = MemoryKind.PAGEABLE;
        copy.dstKind = MemoryKind.DEVICE;
        copy.bytes = 262_144;
        copy.presentAll(RecordField.CONTEXT.bit() | RecordField.BYTES.bit());
        TraceRecord set = record(RecordType.ACTIVITY, EventKind.MEMSET, 7_000, 7_832);
        set.clearCorrelation();
        set.memoryKind = MemoryKind.DEVICE;
        set.bytes = 16;
        set.presentAll(RecordField.CONTEXT.bit() | RecordField.BYTES.bit() | RecordField.MEMSET_VALUE.bit());

        JsonNode trace = run();
        assertEquals(BASE, trace.get("baseTimeNanoseconds").asLong());
        assertEquals("N/A", trace.get("note").asText());
        assertTrue(trace.get("bandwidth").isNumber());

        JsonNode k = cat(trace, "kernel").get(0);
        assertEquals("3.001", k.get("ts").decimalValue().toPlainString(), "µs with exactly three decimals");
        assertEquals("1.609", k.get("dur").decimalValue().toPlainString());
        List<String> keys = new ArrayList<>();
        k.get("args").fieldNames().forEachRemaining(keys::add);
        assertEquals(List.of("External id", "queued", "device", "context", "stream", "correlation", "registers per thread",
                "shared memory", "blocks per SM", "warps per SM", "grid", "block", "est. achieved occupancy %"), keys,
                "the 13 fields, in torch's order");
        assertEquals("1.939394", k.get("args").get("blocks per SM").decimalValue().toPlainString());
        assertEquals("15.515152", k.get("args").get("warps per SM").decimalValue().toPlainString());
        assertEquals(0, k.get("args").get("External id").asLong(), "0 is a valid External id");

        JsonNode m = cat(trace, "gpu_memcpy").get(0);
        assertEquals("Memcpy HtoD (Pageable -> Device)", m.get("name").asText());
        assertEquals(262_144 / 1_088.0, m.get("args").get("memory bandwidth (GB/s)").asDouble(), 1e-12);
        assertFalse(m.get("args").has("External id"), "no binding: no External id, never a made-up 0");
        assertEquals("Memset (Device)", cat(trace, "gpu_memset").get(0).get("name").asText());

        List<JsonNode> flows = cat(trace, "ac2g");
        assertEquals(2, flows.size(), "one arrow: the memcpy's launch is missing, so it gets none");
        assertEquals("s", flows.get(0).get("ph").asText());
        assertEquals(99, flows.get(0).get("tid").asLong());
        assertEquals("f", flows.get(1).get("ph").asText());
        assertEquals("e", flows.get(1).get("bp").asText());
        assertEquals(80, flows.get(1).get("id").asLong());

        JsonNode cpuOp = cat(trace, "cpu_op").get(0);
        assertEquals(99, cpuOp.get("tid").asLong(), "drawn on the row of the thread its launch ran on");
        assertEquals(4242, cpuOp.get("pid").asLong());

        assertEquals(1, cat(trace, "Trace").size());
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("\"cat\":\"Trace\",\"ts\":1.000,\"dur\":999.000"), "the capture window's span, three decimals");
        assertTrue(text.contains("\"stream 7 \""), "stream rows labelled as torch labels them");
        assertEquals(0.0, writer.summary().row("app::mm").cpuTimeTotalUs() - 7.5, 1e-9);
        assertEquals(1.609, writer.summary().row("app::mm").selfDeviceTimeTotalUs(), 1e-9,
                "the kernel's time, not the unattributed memcpy's or memset's");
    }

    @Test
    void hostileNamesAreEscapedAndRoundTrip() throws Exception {
        String[] hostile = {"k\"}]}, {\"x", "back\\slash", "line\nbreak\u0000", "ünïcødé ✓ \uD83D\uDE80", "</script>"};
        long t = 2_000;
        for (String name : hostile) {
            TraceRecord k = record(RecordType.ACTIVITY, EventKind.KERNEL, t, t + 10);
            k.nameId = names.intern(name);
            TraceRecord op = record(RecordType.HOST_OP, null, t, t + 10);
            op.nameId = names.intern(name);
            op.externalId(t);
            t += 100;
        }
        JsonNode trace = run();
        List<String> kernels = new ArrayList<>();
        cat(trace, "kernel").forEach(e -> kernels.add(e.get("name").asText()));
        List<String> ops = new ArrayList<>();
        cat(trace, "cpu_op").forEach(e -> ops.add(e.get("name").asText()));
        assertEquals(List.of(hostile), kernels);
        assertEquals(List.of(hostile), ops);
    }

    @Test
    void recordsTheWindowDroppedAreNotWritten() throws Exception {
        TraceRecord early = record(RecordType.ACTIVITY, EventKind.KERNEL, 10, 20);
        early.nameId = names.intern("k");
        early.outsideWindow = true;
        JsonNode trace = run();
        assertTrue(cat(trace, "kernel").isEmpty());
    }

    @Test
    void opsAreNumberedInStartOrderWhateverTheirArrivalOrder() throws Exception {
        long[] starts = {5_000, 2_000, 9_000, 3_000};
        for (int i = 0; i < starts.length; i++) {
            TraceRecord op = record(RecordType.HOST_OP, null, starts[i], starts[i] + 100);
            op.nameId = names.intern("op");
            op.externalId(i);
        }
        JsonNode trace = run();
        List<JsonNode> ops = cat(trace, "cpu_op");
        for (int i = 0; i < ops.size(); i++) {
            assertEquals(i, ops.get(i).get("args").get("Ev Idx").asInt());
            if (i > 0) {
                assertTrue(ops.get(i).get("ts").decimalValue().compareTo(ops.get(i - 1).get("ts").decimalValue()) > 0);
            }
        }
    }

    /**
     * With a horizon of 8 records an op's row is written while the capture goes on, between the
     * records, not held to the end; its device time is still its own.
     */
    @Test
    void anOpsRowIsWrittenAHorizonAfterItNotAtTheEnd() throws Exception {
        ByteArrayOutputStream streamed = new ByteArrayOutputStream();
        CaptureAccounting accounting = new CaptureAccounting(new DecodeStats());
        TraceWalk small = walk(streamed, UnitTrace.header(Map.of()), accounting,
                new ExternalCorrelationJoin(8));
        TraceRecord op = record(RecordType.HOST_OP, null, 2_000, 9_000);
        op.nameId = names.intern("app::step");
        op.externalId(5);
        for (int i = 0; i < 20; i++) {
            TraceRecord k = record(RecordType.ACTIVITY, EventKind.KERNEL, 10_000 + i * 100L, 10_050 + i * 100L);
            k.nameId = names.intern("k" + i);
            if (i == 0) {
                k.externalId(5);
            }
        }
        record(RecordType.END_OF_CAPTURE, null, 0, 0);
        long sequence = 0;
        for (TraceRecord r : records) {
            deliver(small, r, sequence++);
        }
        small.awaitFinished();
        assertEquals(null, small.failure());
        String text = streamed.toString(StandardCharsets.UTF_8);
        int row = text.indexOf("\"app::step\"");
        assertTrue(row > text.indexOf("\"k8\"") && row < text.indexOf("\"k9\""), "written after the ninth record, not at the end");
        assertEquals(0.050, small.summary().row("app::step").selfDeviceTimeTotalUs(), 1e-12);
        assertEquals(0, accounting.deviceRecordsWithoutOp());
    }
}
