package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.tracefile.TraceBlocks;
import org.flagos.trace.tracefile.TraceFormatException;
import org.flagos.trace.tracefile.TraceReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A trace read in chunks on two threads ({@link ChunkedTraceRead}) hands the summary's reader the events the
 * one-thread walk hands it, in the same order, and gives the same table byte for byte; where a chunk's read
 * fails (a fault of the file, or a cut inside a string or an event) the one-thread read says what is wrong, in
 * its words and at its line. Chunks of a few KiB here, so that the bundled traces are cut many times.
 */
class ChunkedTraceReadTest {
    /** Two threads, any size, the first cut past 2 KiB, chunks of 16 KiB. */
    static final ChunkedTraceRead.Settings SMALL = new ChunkedTraceRead.Settings(2, 0, 2 << 10, 16 << 10);

    @TempDir
    Path dir;

    /** Every event call the summary's reader is handed, in order, as text. */
    static final class Calls implements SummaryEvents.Sink {
        final List<String> calls = new ArrayList<>();

        @Override
        public void complete(String cat, String name, String pid, String tid, long tsNs, long durNs, boolean unusable,
                             long externalId, long inElems, long outElems, String dtype) {
            calls.add(String.join("|", "X", cat, name, pid, tid, "" + tsNs, "" + durNs, "" + unusable, "" + externalId,
                    "" + inElems, "" + outElems, dtype));
        }

        @Override
        public void memory(long totalAllocated, long tsNs, boolean unusable, long deviceType, long device, long pidNumber) {
            calls.add("M|" + totalAllocated + "|" + tsNs + "|" + unusable + "|" + deviceType + "|" + device + "|" + pidNumber);
        }
    }

    static List<String> traces() {
        List<String> all = new ArrayList<>();
        for (String c : Captures.EVERY) {
            all.add("capture:" + c);
        }
        all.add("torch:torch_trace.json");
        all.add("hta:nccl_data.json.gz");
        all.add("hta:sampled_rank-0.json.gz");
        return all;
    }

    /** The bundled trace or capture {@code which}, as a plain JSON file. */
    Path trace(String which) throws Exception {
        return trace(dir, which);
    }

    /** The bundled trace or capture {@code which}, as a plain JSON file in {@code dir}. */
    static Path trace(Path dir, String which) throws Exception {
        String name = which.substring(which.indexOf(':') + 1);
        Path json = dir.resolve(name.replace('/', '_').replace(".gz", "") + (name.endsWith(".json") || name.endsWith(".json.gz") ? "" : ".json"));
        if (which.startsWith("capture:")) {
            try (OutputStream out = Files.newOutputStream(json)) {
                CaptureReplay.run(CaptureReplay.request(Captures.capture(name), Captures.ops(name), null, List.of(), Map.of()), out);
            }
        } else if (which.startsWith("torch:")) {
            Files.copy(TorchKeyAveragesTest.resource(name), json);
        } else {
            try (InputStream in = new GZIPInputStream(ChunkedTraceReadTest.class.getResourceAsStream("/hta/" + name))) {
                Files.copy(in, json);
            }
        }
        return json;
    }

    static byte[] summaryJson(TraceFile t) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        KeyAverages a = t.averages();
        KeyAveragesJson.write(t, a, a.hasDeviceTime() ? SortKey.SELF_DEVICE_TIME_TOTAL : SortKey.CPU_TIME_TOTAL, -1, out);
        return out.toByteArray();
    }

    static TraceFile read(Path p, ChunkedTraceRead.Settings s) throws IOException {
        return TraceFile.read(p, TraceFile.DEFAULT_MAX_EVENTS, () -> new KeyAveragesBuilder(p.getParent()), false, s);
    }

    @ParameterizedTest
    @MethodSource("traces")
    void chunksHandOnTheOneThreadWalksEventsAndGiveTheSameTable(String which) throws Exception {
        Path json = trace(which);
        long size = Files.size(json); // about ten chunks, whatever the trace's size
        ChunkedTraceRead.Settings small = new ChunkedTraceRead.Settings(2, 0, size / 20, size / 10);
        TraceChunks.Plan plan = ChunkedTraceRead.plan(json, small);
        assertNotNull(plan, which + ": cut");
        assertTrue(plan.middleChunks() >= 5, which + ": " + plan.middleChunks() + " middle chunks");

        Calls one = new Calls();
        TraceBlocks oneBlocks = TraceReader.read(json, "x", TraceReader.Options.FIELDS, e -> SummaryEvents.handOn(e, one));
        Calls chunked = new Calls();
        java.util.concurrent.atomic.AtomicInteger scanned = new java.util.concurrent.atomic.AtomicInteger();
        TraceBlocks blocks = ChunkedTraceRead.read(json, plan, 2, chunked, scanned);
        assertNotNull(blocks, which + ": read in chunks, no fallback");
        if (which.startsWith("capture:")) { // flagtrace's own traces: every middle chunk scanned from its bytes
            assertEquals(plan.middleChunks(), scanned.get(), which + ": middle chunks scanned");
        }
        assertTrue(one.calls.size() > 100, which + ": " + one.calls.size() + " events");
        assertEquals(one.calls, chunked.calls, which + ": every event, in file order");
        assertEquals(oneBlocks.accounting(), blocks.accounting());
        assertEquals(oneBlocks.devices(), blocks.devices());
        assertEquals(oneBlocks.cuda(), blocks.cuda());
        assertEquals(oneBlocks.bareArray(), blocks.bareArray());

        TraceFile a = read(json, ChunkedTraceRead.Settings.ONE_THREAD);
        TraceFile b = read(json, small);
        assertArrayEquals(summaryJson(a), summaryJson(b), which + ": summary --json byte for byte");
        assertEquals(a.averages().rows(), b.averages().rows());
        assertEquals(a.deviceWorkStats(), b.deviceWorkStats());
        assertEquals(a.collectives(), b.collectives());
        assertEquals(a.memory().events(), b.memory().events());
        assertEquals(a.memory().devices().keySet(), b.memory().devices().keySet());
        for (String d : a.memory().devices().keySet()) {
            MemoryTimeline.Series x = a.memory().devices().get(d);
            MemoryTimeline.Series y = b.memory().devices().get(d);
            assertArrayEquals(x.ts, y.ts, d);
            assertArrayEquals(x.total, y.total, d);
        }
        assertEquals(a.originNs(), b.originNs());
    }

    /** One event a line, {@code n} of them, the {@code bad}th (0-based) written by {@code badEvent}; blocks before and after. */
    Path lines(String name, int n, int bad, String badEvent) throws IOException {
        StringBuilder s = new StringBuilder("{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA H200\"}],\n\"traceEvents\":[\n");
        for (int i = 0; i < n; i++) {
            long ts = 1000 + 10L * i;
            s.append(i == bad ? badEvent : "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op" + (i % 7) + "\",\"pid\":1,\"tid\":2,\"ts\":"
                    + ts + ",\"dur\":5,\"args\":{\"External id\":" + i + "}}");
            s.append(i + 1 < n ? ",\n" : "\n");
        }
        s.append("],\n\"flagtrace\":{\"events\":").append(n).append("}}\n");
        Path p = dir.resolve(name);
        Files.writeString(p, s);
        return p;
    }

    @Test
    void aRefusalInTheSecondChunkKeepsItsWordsAndLine() throws Exception {
        // 20,000 events of about 90 bytes a line: the first cut past 2 KiB (line 24), then one every 16 KiB;
        // event 100 (line 103) lies in the second chunk, the first read on its own
        String twice = "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"name\":\"b\",\"pid\":1,\"tid\":2,\"ts\":5000,\"dur\":5}";
        Path p = lines("twice.json", 20_000, 100, twice);
        TraceChunks.Plan plan = ChunkedTraceRead.plan(p, SMALL);
        assertNotNull(plan);
        assertTrue(plan.cuts()[0] < 100 * 90 && plan.cuts()[1] > 102 * 92 && plan.middleChunks() > 10,
                "the bad event in the first middle chunk: cuts " + plan.cuts()[0] + ", " + plan.cuts()[1]);
        assertNull(ChunkedTraceRead.read(p, plan, 2, new Calls()), "the chunk's read fails: no table from chunks");
        TraceFormatException one = assertThrows(TraceFormatException.class, () -> read(p, ChunkedTraceRead.Settings.ONE_THREAD));
        TraceFormatException chunked = assertThrows(TraceFormatException.class, () -> read(p, SMALL));
        assertEquals(p + " is not a trace: an object has its \"name\" twice at line 103, column 43", one.getMessage());
        assertEquals(one.getMessage(), chunked.getMessage());

        String late = "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":2,\"ts\":1e300,\"dur\":5}";
        Path q = lines("late.json", 20_000, 100, late);
        TraceFormatException oneLate = assertThrows(TraceFormatException.class, () -> read(q, ChunkedTraceRead.Settings.ONE_THREAD));
        assertTrue(oneLate.getMessage().contains("the event on line 103 has a ts of 1e300"), oneLate.getMessage());
        assertEquals(oneLate.getMessage(), assertThrows(TraceFormatException.class, () -> read(q, SMALL)).getMessage());
    }

    @Test
    void theSummarysOwnLimitsFailAtTheSameEvent() throws Exception {
        Path p = lines("many.json", 20_000, -1, null);
        String one = assertThrows(TraceFormatException.class,
                () -> TraceFile.read(p, 12_345, () -> new KeyAveragesBuilder(dir), false, ChunkedTraceRead.Settings.ONE_THREAD)).getMessage();
        assertEquals(p + " holds more than 12345 events; summarise a shorter window of it", one);
        assertEquals(one, assertThrows(TraceFormatException.class,
                () -> TraceFile.read(p, 12_345, () -> new KeyAveragesBuilder(dir), false, SMALL)).getMessage());
        assertArrayEquals(summaryJson(read(p, ChunkedTraceRead.Settings.ONE_THREAD)), summaryJson(read(p, SMALL)));
    }

    @Test
    void aLimitOfTheTablesPassesIsSaidAlike() throws Exception {
        // 70,000 events each inside the one before on one thread: past the nesting bound, found after the last event
        StringBuilder s = new StringBuilder("{\"traceEvents\":[\n");
        int n = KeyAveragesBuilder.MAX_DEPTH + 4464;
        for (int i = 0; i < n; i++) {
            s.append(i == 0 ? "" : ",\n").append("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"d\",\"pid\":1,\"tid\":1,\"ts\":")
                    .append(i).append(",\"dur\":").append(2L * (n - i)).append("}");
        }
        Path p = Files.writeString(dir.resolve("deep.json"), s.append("]}"));
        ChunkedTraceRead.Settings chunks = new ChunkedTraceRead.Settings(2, 0, 64 << 10, 512 << 10);
        assertTrue(ChunkedTraceRead.plan(p, chunks).middleChunks() >= 5);
        String one = assertThrows(TraceFormatException.class, () -> read(p, ChunkedTraceRead.Settings.ONE_THREAD)).getMessage();
        assertEquals(p + " nests events more than 65536 deep on one thread; summarise a shorter window of it", one);
        assertEquals(one, assertThrows(TraceFormatException.class, () -> read(p, chunks)).getMessage());
    }

    @Test
    void aCutInsideAStringOrAnEventIsNotTrusted() throws Exception {
        // every name holds "},{" and every event a list of objects: the byte search finds its cuts inside them
        StringBuilder s = new StringBuilder("[");
        for (int i = 0; i < 5_000; i++) {
            s.append(i == 0 ? "" : ",").append("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"n},{").append(i % 5)
                    .append("\",\"pid\":1,\"tid\":1,\"ts\":").append(10 * i).append(",\"dur\":3,\"args\":{\"l\":[{\"a\":1},{\"b\":2},{\"c\":3}]}}");
        }
        s.append("]");
        Path p = dir.resolve("strings.json");
        Files.writeString(p, s);
        TraceChunks.Plan plan = ChunkedTraceRead.plan(p, SMALL);
        assertNotNull(plan, "the first cut is parsed, the others searched for");
        assertNull(ChunkedTraceRead.read(p, plan, 2, new Calls()), "a chunk cut inside an event does not read");
        TraceFile one = read(p, ChunkedTraceRead.Settings.ONE_THREAD);
        assertEquals(5, one.averages().rows().size());
        assertEquals(1000, one.averages().row("n},{3").count());
        assertArrayEquals(summaryJson(one), summaryJson(read(p, SMALL)));
    }

    @Test
    void gzipAndSmallFilesAreReadOnOneThread() throws Exception {
        Path json = trace("torch:torch_trace.json");
        assertNull(ChunkedTraceRead.plan(json, new ChunkedTraceRead.Settings(2, Files.size(json) + 1, 1 << 10, 1 << 10)), "under minBytes");
        assertNull(ChunkedTraceRead.plan(json, new ChunkedTraceRead.Settings(1, 0, 1 << 10, 1 << 10)), "one core");
        Path gz = dir.resolve("t.json.gz");
        try (OutputStream out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(gz))) {
            Files.copy(json, out);
        }
        assertNull(ChunkedTraceRead.plan(gz, SMALL), "gzip");
        assertArrayEquals(summaryJson(read(json, ChunkedTraceRead.Settings.ONE_THREAD)), summaryJson(read(gz, SMALL)));
    }
}
