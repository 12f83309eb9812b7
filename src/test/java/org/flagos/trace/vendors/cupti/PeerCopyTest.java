package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.model.CopyKind;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.MemoryKind;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.report.TraceTables;
import org.flagos.trace.encoders.EventTable;
import org.flagos.trace.testing.CuptiRecords;
import org.flagos.trace.testing.TargetScratch;
import org.flagos.trace.testing.TraceJson;
import org.flagos.trace.testing.TraceJson.Replayed;
import org.junit.jupiter.api.Test;

/**
 * CUPTI MEMCPY2 records ({@code CUpti_ActivityMemcpyPtoP4}, copies between two GPUs), written at the
 * offsets gcc's {@code offsetof} measured against CUDA 13.0 ({@code h200-managed.layouts.json}) and
 * replayed beside the real H200 capture {@code h200-managed}. Synthetic, honestly: the H200 lent to
 * us is one GPU, where CUPTI reports even {@code cudaMemcpyPeer} as an ordinary device-to-device MEMCPY
 * (the capture's own {@code kinds::peer_copy}, correlation 626). Two buffers are added, as CUPTI
 * writes them: a host thread's ({@code cudaMemcpyPeer} and {@code cudaMemcpyPeerAsync} inside
 * {@code kinds::peer_copy}, External id 36, each after its binding) and a device buffer (device 0 to
 * 1, device 1 to 0, and a peer copy of the capture's graph launch, correlation 560). The capture's
 * unified-memory counter records (kind 25, not decoded on this branch) are taken out first.
 * Golden: the events kineto's schema gives them, byte for byte. Agitators: a record without its
 * call, a device buffer delivered twice, buffers reversed, records shuffled.
 */
class PeerCopyTest {
    private static final String CAPTURE = "h200-managed/h200-managed";
    private static final int PID = 676;
    private static final int TID = (int) 892686336L;
    /**
     * Inside kinds::peer_copy (External id 36, from ...776262941), before the capture's own
     * cudaMemcpyPeer (from ...776266836): the only stretch of the op where its thread makes no call
     * of its own, so the two synthetic calls (1.5 µs each) overlap no real one on the thread's row.
     */
    private static final long T0 = 1_796_202_935_776_263_000L;
    /** Between the memcpy and memset nodes of the capture's first graph launch (graph 2, correlation 560). */
    private static final long G0 = 1_796_202_935_499_074_850L;
    private static final int MEMCPY_PEER = 160;
    private static final int MEMCPY_PEER_ASYNC = 161;
    private static final int GRAPH_LAUNCH_CORRELATION = 560;
    private static final long GRAPH_NODE = 8589934597L;
    private static final int UNIFIED_MEMORY_COUNTER = 25;
    /** {@code CUpti_ActivityUnifiedMemoryCounter3}'s size (h200-managed.layouts.json). */
    private static final int UNIFIED_MEMORY_SIZE = 104;
    private static final String NAME = "Memcpy PtoP (Device -> Device)";
    private static final long TWO_32 = 1L << 32;

    /** The host thread's buffer: the two peer-copy calls, bound to kinds::peer_copy unless {@code bindings} is false. */
    static CuptiRecords host(boolean bindings) {
        CuptiRecords r = new CuptiRecords();
        if (bindings) {
            r.binding(9001, 36);
        }
        r.runtime(MEMCPY_PEER, T0, T0 + 1_500, PID, TID, 9001);
        if (bindings) {
            r.binding(9002, 36);
        }
        r.runtime(MEMCPY_PEER_ASYNC, T0 + 2_000, T0 + 3_500, PID, TID, 9002);
        return r;
    }

    /** The device buffer: 4 MiB from device 0 to 1, 2 MiB from 1 to 0, and 1 MiB from 0 to 1 as a node of graph 2 (in 500 ns). */
    static CuptiRecords device() {
        return new CuptiRecords()
                .peerCopy(T0 + 1_500, T0 + 9_500, 4L << 20, 0, 1, 7, 0, 1, 1, 3, 9001, 0, 0)
                .peerCopy(T0 + 16_500, T0 + 24_500, 2L << 20, 1, 3, 31, 1, 3, 0, 1, 9002, 0, 0)
                .peerCopy(G0, G0 + 500, 1L << 20, 0, 1, 15, 0, 1, 1, 3, GRAPH_LAUNCH_CORRELATION, 2, GRAPH_NODE);
    }

    /** The capture without its unified-memory counter records, then {@code added} after its buffers. */
    static UnaryOperator<List<CaptureReplay.Frame>> with(CaptureReplay.Frame... added) {
        return frames -> {
            List<CaptureReplay.Frame> all = new ArrayList<>(withoutUnifiedMemory(frames));
            Collections.addAll(all, added);
            return all;
        };
    }

    /** The capture's frames with every kind-25 record taken out (the rest byte for byte, in order). */
    static List<CaptureReplay.Frame> withoutUnifiedMemory(List<CaptureReplay.Frame> frames) {
        List<CaptureReplay.Frame> out = new ArrayList<>();
        for (CaptureReplay.Frame frame : frames) {
            ByteBuffer in = frame.payload().duplicate().order(ByteOrder.LITTLE_ENDIAN);
            ByteBuffer kept = ByteBuffer.allocate(in.remaining()).order(ByteOrder.LITTLE_ENDIAN);
            for (int pos = in.position(); pos < in.limit(); ) {
                int kind = in.getInt(pos);
                int size = kind == UNIFIED_MEMORY_COUNTER ? UNIFIED_MEMORY_SIZE : CuptiActivityKind.recordSize(kind);
                assertTrue(size > 0, "a kind of known size: " + kind);
                if (kind != UNIFIED_MEMORY_COUNTER) {
                    kept.put(in.duplicate().position(pos).limit(pos + size));
                }
                pos += size;
            }
            kept.flip();
            out.add(new CaptureReplay.Frame(frame.vendor(), kept.slice().order(ByteOrder.LITTLE_ENDIAN)));
        }
        return out;
    }

    static Replayed replay(UnaryOperator<List<CaptureReplay.Frame>> order) {
        return TraceJson.replay(CAPTURE, order);
    }

    static Replayed inOrder() {
        return replay(with(host(true).frame(), device().frame()));
    }

    private static Replayed base() {
        return replay(with());
    }

    private static void assertTs(String expected, JsonNode event) {
        assertEquals(0, new java.math.BigDecimal(expected).compareTo(event.get("ts").decimalValue()), expected + " vs " + event);
    }

    private static String ts(Replayed t, long ns) {
        long d = ns - t.trace().get("baseTimeNanoseconds").asLong();
        return (d / 1000) + "." + String.format("%03d", d % 1000);
    }

    @Test
    void peerCopiesAreDrawnAsKinetoDrawsThemOnTheRowOfTheDeviceThatRanThem() {
        Replayed t = inOrder();
        String json = new String(t.bytes(), StandardCharsets.UTF_8);
        for (String golden : List.of(
                "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"" + NAME + "\",\"pid\":0,\"tid\":7,\"ts\":" + ts(t, T0 + 1_500)
                        + ",\"dur\":8.000,\"args\":{\"External id\":36,\"fromDevice\":0,\"inDevice\":0,\"toDevice\":1,"
                        + "\"fromContext\":1,\"inContext\":1,\"toContext\":3,\"stream\":7,\"correlation\":9001,"
                        + "\"bytes\":4194304,\"memory bandwidth (GB/s)\":524.288}}",
                "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"" + NAME + "\",\"pid\":1,\"tid\":31,\"ts\":" + ts(t, T0 + 16_500)
                        + ",\"dur\":8.000,\"args\":{\"External id\":36,\"fromDevice\":1,\"inDevice\":1,\"toDevice\":0,"
                        + "\"fromContext\":3,\"inContext\":3,\"toContext\":1,\"stream\":31,\"correlation\":9002,"
                        + "\"bytes\":2097152,\"memory bandwidth (GB/s)\":262.144}}",
                "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"" + NAME + "\",\"pid\":0,\"tid\":15,\"ts\":" + ts(t, G0)
                        + ",\"dur\":0.500,\"args\":{\"External id\":19,\"fromDevice\":0,\"inDevice\":0,\"toDevice\":1,"
                        + "\"fromContext\":1,\"inContext\":1,\"toContext\":3,\"stream\":15,\"correlation\":560,"
                        + "\"bytes\":1048576,\"memory bandwidth (GB/s)\":2097.152,\"graph id\":2,"
                        + "\"graph node id\":8589934597}}")) {
            assertTrue(json.contains(golden), "missing " + golden);
        }
        assertEquals(3, peerCopies(t).size());
        assertTrue(json.contains("{\"name\":\"process_name\",\"ph\":\"M\""), "rows named");
        boolean device1Row = false;
        for (JsonNode e : t.events()) {
            if ("M".equals(e.path("ph").asText()) && e.path("pid").asLong() == 1 && e.path("tid").asLong() == 31) {
                device1Row = true;
            }
        }
        assertTrue(device1Row, "device 1's stream 31 gets its row");
    }

    @Test
    void eachCallHasItsArrowAndTheGraphCopyOneOfItsOwnFromTheLaunch() {
        Replayed t = inOrder();
        Map<Long, JsonNode> arrows = paired(t);
        JsonNode peer = arrows.get(9001L);
        assertNotNull(peer, "cudaMemcpyPeer to its copy");
        assertTs(ts(t, T0), peer);
        assertEquals(TID & 0xFFFF_FFFFL, peer.get("tid").asLong());
        JsonNode async = arrows.get(9002L);
        assertNotNull(async, "cudaMemcpyPeerAsync to its copy");
        assertTs(ts(t, T0 + 2_000), async);
        Map<Long, JsonNode> finishes = new HashMap<>();
        for (JsonNode e : t.category("ac2g")) {
            if ("f".equals(e.get("ph").asText())) {
                finishes.put(e.get("id").asLong(), e);
            }
        }
        assertTs(ts(t, T0 + 1_500), finishes.get(9001L));
        assertEquals(1, finishes.get(9002L).get("pid").asLong(), "on device 1's row");
        long graphArrow = GRAPH_LAUNCH_CORRELATION + (GRAPH_NODE + 1) * TWO_32;
        assertNotNull(arrows.get(graphArrow), "the graph's peer copy, linked to the launch by correlation and node");
        assertTs(ts(t, G0), finishes.get(graphArrow));
        assertTs(ts(t, 1_796_202_935_499_035_991L), arrows.get(graphArrow));
    }

    @Test
    void theCopiesAreTheirOpsSelfDeviceTimeAndCountedAsCopies() {
        Replayed before = base();
        Replayed after = inOrder();
        assertEquals(before.result().summary().row("kinds::peer_copy").selfDeviceTimeTotalUs() + 16.0,
                after.result().summary().row("kinds::peer_copy").selfDeviceTimeTotalUs(), 1e-6, "two 8 µs copies");
        assertEquals(before.result().summary().row("kinds::graph_launch").selfDeviceTimeTotalUs() + 0.5,
                after.result().summary().row("kinds::graph_launch").selfDeviceTimeTotalUs(), 1e-6, "the graph's 0.5 µs copy");
        JsonNode decodedBefore = before.trace().get("flagtrace").get("decoded");
        JsonNode decodedAfter = after.trace().get("flagtrace").get("decoded");
        assertEquals(decodedBefore.get("gpu_memcpy").asLong() + 3, decodedAfter.get("gpu_memcpy").asLong());
        assertFalse(after.trace().get("flagtrace").path("skipped_vendor_kinds").has("22"), "decoded, not skipped");
        assertEquals(0, after.trace().get("flagtrace").path("undecodable_bytes").asLong(0), "every buffer walked to its end");
    }

    @Test
    void theRestOfTheRealCaptureIsDrawnAsBefore() {
        Replayed before = base();
        Replayed after = inOrder();
        Set<String> added = new HashSet<>();
        for (JsonNode e : after.events()) {
            added.add(e.toString());
        }
        int unchanged = 0;
        for (JsonNode e : before.events()) {
            String cat = e.path("cat").asText();
            long external = e.path("args").path("External id").asLong(-1);
            if (cat.equals("gpu_user_annotation") && external == 36) {
                continue; // kinds::peer_copy's span on stream 7 widens to take in its copy
            }
            assertTrue(added.contains(e.toString()), "still drawn: " + e);
            unchanged++;
        }
        assertTrue(unchanged > 1_000, "the capture's events: " + unchanged);
        // The real copies of one GPU stay ordinary device-to-device copies (CUPTI's MEMCPY records).
        List<String> real = new ArrayList<>();
        for (JsonNode e : after.category("gpu_memcpy")) {
            long c = e.get("args").get("correlation").asLong();
            if (c == 616 || c == 617 || c == 626) {
                real.add(c + " " + e.get("name").asText() + " context " + e.get("args").get("context").asLong());
            }
        }
        Collections.sort(real);
        assertEquals(List.of("616 Memcpy DtoD (Device -> Device) context 1", "617 Memcpy DtoD (Device -> Device) context 2",
                "626 Memcpy DtoD (Device -> Device) context 1"), real);
    }

    @Test
    void aCopyWithoutItsCallIsDrawnUnattributedWithoutArrowAndCounted() {
        Replayed before = base();
        Replayed t = replay(with(host(true).frame(), device().frame(), new CuptiRecords()
                .peerCopy(T0 + 30_000, T0 + 31_000, 4096, 0, 1, 7, 0, 1, 1, 3, 9100, 0, 0).frame()));
        JsonNode orphan = null;
        for (JsonNode e : peerCopies(t)) {
            if (e.get("args").get("correlation").asLong() == 9100) {
                orphan = e;
            }
        }
        assertNotNull(orphan, "drawn");
        assertFalse(orphan.get("args").has("External id"), orphan.toString());
        assertFalse(paired(t).containsKey(9100L), "no arrow from a call that is not there");
        assertEquals(before.trace().get("flagtrace").get("without_external_id").path("gpu_memcpy").asLong(0) + 1,
                t.trace().get("flagtrace").get("without_external_id").get("gpu_memcpy").asLong());
    }

    @Test
    void aDeviceBufferDeliveredTwiceDrawsItTwiceAndLeavesNoHalfAlone() {
        Replayed t = replay(with(host(true).frame(), device().frame(), device().frame()));
        assertEquals(6, peerCopies(t).size());
        Map<Long, Integer> halves = new HashMap<>();
        for (JsonNode e : t.category("ac2g")) {
            halves.merge(e.get("id").asLong(), "s".equals(e.get("ph").asText()) ? 1 : -1, Integer::sum);
        }
        halves.forEach((id, balance) -> assertEquals(0, balance, "as many s as f halves for id " + id));
        for (JsonNode e : peerCopies(t)) {
            assertTrue(e.get("args").has("External id"), "both copies attributed: " + e);
        }
    }

    @Test
    void theTraceIsTheSameInAnyArrivalOrder() {
        List<String> expected = canonical(inOrder());
        Replayed reversed = replay(frames -> {
            List<CaptureReplay.Frame> all = new ArrayList<>(with(host(true).frame(), device().frame()).apply(frames));
            Collections.reverse(all);
            return all;
        });
        assertEquals(expected, canonical(reversed), "buffers reversed: the copies before their calls and bindings");
        // The added records one by one in random order after the capture's buffers (the capture's own are kept in
        // order: shuffled, its NVTX ends may precede their starts, which pairs them otherwise, unrelated to copies).
        for (long seed : new long[] {1, 2, 3}) {
            Replayed shuffled = replay(frames -> {
                List<CaptureReplay.Frame> all = new ArrayList<>(with().apply(frames));
                all.addAll(CuptiRecords.shuffledRecords(List.of(host(true).frame(), device().frame()), seed));
                return all;
            });
            assertEquals(expected, canonical(shuffled), "added records shuffled, seed " + seed);
        }
    }

    @Test
    void perfettoCarriesTheSameArgsAndSummarisesAsTheJson() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createDirectories(java.nio.file.Path.of("target", "peer-copy-test"));
        try {
            java.nio.file.Path json = java.nio.file.Files.write(dir.resolve("peer.json"), inOrder().bytes());
            java.nio.file.Path pftrace = dir.resolve("peer.pftrace");
            java.nio.file.Path plain = dir.resolve("plain.pftrace");
            write(with(host(true).frame(), device().frame()), org.flagos.trace.capture.TraceFormat.PERFETTO, pftrace);
            write(with(), org.flagos.trace.capture.TraceFormat.PERFETTO, plain);
            String bytes = new String(java.nio.file.Files.readAllBytes(pftrace), StandardCharsets.ISO_8859_1);
            for (String key : List.of("fromDevice", "inDevice", "toDevice", "fromContext", "inContext", "toContext")) {
                assertEquals(1, bytes.split(key, -1).length - 1, key + " interned once");
            }
            assertFalse(new String(java.nio.file.Files.readAllBytes(plain), StandardCharsets.ISO_8859_1).contains("fromDevice"),
                    "a trace without peer copies interns none of their keys");
            org.flagos.trace.report.TraceFile fromJson = org.flagos.trace.report.TraceFile.read(json);
            org.flagos.trace.report.TraceFile fromPerfetto = org.flagos.trace.report.TraceFile.read(pftrace);
            assertEquals(fromJson.averages().rows(), fromPerfetto.averages().rows());
            assertTrue(fromJson.averages().rows().stream().anyMatch(r -> r.name().equals(NAME)), "a row of its own");
        } finally {
            try (var files = java.nio.file.Files.list(dir)) {
                for (java.nio.file.Path f : files.toList()) {
                    java.nio.file.Files.delete(f);
                }
            }
            java.nio.file.Files.delete(dir);
        }
    }

    private static void write(UnaryOperator<List<CaptureReplay.Frame>> order, org.flagos.trace.capture.TraceFormat format,
                              java.nio.file.Path to) throws Exception {
        CaptureReplay.Request request = CaptureReplay.Request.of(org.flagos.trace.ingest.CaptureBytes.load(org.flagos.trace.testing.Captures.capture(CAPTURE)), CAPTURE)
                .ops(org.flagos.trace.ingest.OpsJsonlReader.read(org.flagos.trace.testing.Captures.ops(CAPTURE)))
                .kernelNames(org.flagos.trace.ingest.KernelNameFile.read(org.flagos.trace.testing.Captures.names(CAPTURE)))
                .devices(org.flagos.trace.cli.TestDevices.h200()).frameOrder(order).ringSize(1 << 12).format(format).build();
        try (java.io.OutputStream out = java.nio.file.Files.newOutputStream(to)) {
            CaptureReplay.run(request, out);
        }
    }

    @Test
    void theEventsTableHasBothEndsOfEachPeerCopyAndNullsOnEveryOtherRow() throws Exception {
        try (TargetScratch scratch = TargetScratch.of("peer-copy-table")) {
            java.nio.file.Path json = java.nio.file.Files.write(scratch.dir().resolve("peer.json"), inOrder().bytes());
            java.nio.file.Path walked = scratch.dir().resolve("walked.parquet");
            java.nio.file.Path read = scratch.dir().resolve("read.parquet");
            write(with(host(true).frame(), device().frame()), org.flagos.trace.capture.TraceFormat.PARQUET, walked);
            try (EventTable table = new EventTable(scratch.dir())) {
                new TraceTables(table).read(json);
                table.writeParquet(read);
            }
            for (java.nio.file.Path t : List.of(walked, read)) {
                String from = " FROM '" + t + "'";
                assertEquals(List.of(List.of(560L, 0L, 0L, 1L, 1L, 3L), List.of(9001L, 0L, 0L, 1L, 1L, 3L),
                        List.of(9002L, 1L, 1L, 0L, 3L, 1L)), query("SELECT correlation, device, from_device, to_device,"
                        + " from_context, to_context" + from + " WHERE copy_kind = 'PtoP' ORDER BY correlation"), t.toString());
                assertEquals(List.of(List.of(3L)), query("SELECT count(*)" + from + " WHERE from_device IS NOT NULL"
                        + " OR to_device IS NOT NULL OR from_context IS NOT NULL OR to_context IS NOT NULL"),
                        "only the peer copies");
                // The capture's real copies of one GPU (CUPTI's MEMCPY records) are ordinary copies: no ends.
                assertEquals(List.of(java.util.Arrays.asList(616L, "DtoD", null, null, null, null)),
                        query("SELECT correlation, copy_kind, from_device, to_device, from_context, to_context" + from
                                + " WHERE correlation = 616 AND cat = 'gpu_memcpy'"));
            }
            assertEquals(List.of(List.of(0L)), query("SELECT count(*) FROM (SELECT * FROM '" + walked
                    + "' EXCEPT ALL SELECT * FROM '" + read + "')"), "the walk's table is the JSON trace's");
        }
    }

    /** Every row of a DuckDB query, integers as longs. */
    private static List<List<Object>> query(String sql) throws Exception {
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:duckdb:");
             java.sql.Statement s = c.createStatement(); java.sql.ResultSet r = s.executeQuery(sql)) {
            List<List<Object>> rows = new ArrayList<>();
            while (r.next()) {
                List<Object> row = new ArrayList<>();
                for (int i = 1; i <= r.getMetaData().getColumnCount(); i++) {
                    Object v = r.getObject(i);
                    row.add(v instanceof Number n ? (Object) n.longValue() : v);
                }
                rows.add(row);
            }
            return rows;
        }
    }

    @Test
    void theFlyweightReadsEveryFieldAtTheMeasuredOffsets() {
        List<TraceRecord> records = decode(CuptiRecordLayout.CUPTI_13_0, device().bytes(), new DecodeStats());
        assertEquals(3, records.size());
        TraceRecord a = records.get(1);
        assertEquals(EventKind.MEMCPY, a.kind);
        assertEquals(CopyKind.PTOP, a.copyKind);
        assertEquals(MemoryKind.DEVICE, a.srcKind);
        assertEquals(MemoryKind.DEVICE, a.dstKind);
        assertEquals(List.of(1, 3, 31, 1, 3, 0, 1), List.of(a.device, a.context, a.stream, a.srcDevice, a.srcContext,
                a.dstDevice, a.dstContext));
        assertEquals(2L << 20, a.bytes);
        assertEquals(T0 + 16_500, a.startNs);
        assertEquals(T0 + 24_500, a.endNs);
        assertEquals(9002, a.correlation());
        assertTrue(a.has(RecordField.PEER) && a.has(RecordField.CONTEXT) && a.has(RecordField.BYTES));
        assertFalse(a.has(RecordField.GRAPH), "graph id 0: launched outside a graph");
        TraceRecord g = records.get(2);
        assertTrue(g.has(RecordField.GRAPH));
        assertEquals(2, g.graphId);
        assertEquals(GRAPH_NODE, g.graphNodeId);
    }

    @Test
    void olderRowsDoNotKnowTheRecordAndEndTheWalkThereSayingWhy() {
        byte[] buffer = new CuptiRecords().runtime(MEMCPY_PEER, T0, T0 + 1_500, PID, TID, 9001)
                .peerCopy(T0 + 1_500, T0 + 9_500, 4L << 20, 0, 1, 7, 0, 1, 1, 3, 9001, 0, 0)
                .runtime(MEMCPY_PEER_ASYNC, T0 + 2_000, T0 + 3_500, PID, TID, 9002).bytes();
        for (CuptiRecordLayout row : List.of(CuptiRecordLayout.CUPTI_12_1, CuptiRecordLayout.CUPTI_11_1)) {
            DecodeStats stats = new DecodeStats();
            List<TraceRecord> records = decode(row, buffer, stats);
            assertEquals(1, records.size(), row + ": the call before the copy");
            assertEquals(96 + 40, stats.undecodableBytes(), row.toString());
            assertEquals("unknown CUPTI activity kind 22 at offset 40: its size is unknown to layout " + row
                    + ", rest of buffer (136 bytes) skipped", stats.problems());
        }
        DecodeStats stats = new DecodeStats();
        assertEquals(3, decode(CuptiRecordLayout.CUPTI_13_0, buffer, stats).size());
        assertEquals(0, stats.undecodableBytes());
    }

    private static List<TraceRecord> decode(CuptiRecordLayout row, byte[] bytes, DecodeStats stats) {
        List<TraceRecord> records = new ArrayList<>();
        CuptiBufferDecoder decoder = new CuptiBufferDecoder(KernelNames.NONE, new NameTable(), List.of(), row,
                CuptiApiNames.INSTANCE);
        decoder.decode(ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN), new RecordSink() {
            @Override
            public <A> void publish(EventTranslatorOneArg<TraceRecord, A> translator, A source) {
                TraceRecord r = new TraceRecord();
                translator.translateTo(r, 0, source);
                records.add(r);
            }
        }, stats);
        return records;
    }

    static List<JsonNode> peerCopies(Replayed t) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode e : t.category("gpu_memcpy")) {
            if (NAME.equals(e.get("name").asText())) {
                out.add(e);
            }
        }
        return out;
    }

    /** Every flow start has its finish and ids are unique; the starts by id. */
    private static Map<Long, JsonNode> paired(Replayed t) {
        Map<Long, JsonNode> starts = new HashMap<>();
        Map<Long, JsonNode> finishes = new HashMap<>();
        for (JsonNode e : t.category("ac2g")) {
            Map<Long, JsonNode> side = "s".equals(e.get("ph").asText()) ? starts : finishes;
            assertTrue(side.put(e.get("id").asLong(), e) == null, "duplicate half " + e);
        }
        assertEquals(starts.keySet(), finishes.keySet(), "every s has its f");
        return starts;
    }

    private static List<String> canonical(Replayed t) {
        List<String> events = new ArrayList<>();
        for (JsonNode e : t.events()) {
            events.add(e.toString());
        }
        Collections.sort(events);
        return events;
    }
}
