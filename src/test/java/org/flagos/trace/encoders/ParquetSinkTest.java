package org.flagos.trace.encoders;

import static org.flagos.trace.testing.TableRows.metadata;
import static org.flagos.trace.testing.TableRows.q;
import static org.flagos.trace.testing.TableRows.query;
import static org.flagos.trace.testing.TableRows.single;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.capture.TraceFormat;
import org.flagos.trace.ingest.HostOps;
import org.flagos.trace.ingest.OpsJsonlReader;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.stages.TraceFooter;
import org.flagos.trace.stages.TraceHeader;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ParquetSink's own contract: on the real rank 1 of the bundled two-rank H200 run, the file's metadata (the rank
 * and host of its {@code .process.json}, the JSON trace's base time), every row of that rank and host, the capture
 * span as three timed rows at the ops file's window and none without a window, each flow arrow two rows; a walk with
 * no event is a file of no row; the metadata's words.
 */
class ParquetSinkTest {
    private static final String RANK1 = "h200-ranks/rank1";

    @TempDir
    Path dir;

    /** The replay of rank 1 in {@code format} (with its ops, or none) into {@code to}. */
    private static void replay(TraceFormat format, boolean ops, Path to) throws Exception {
        CaptureReplay.Request r = CaptureReplay.request(Captures.capture(RANK1), ops ? Captures.ops(RANK1) : null, null, List.of(),
                Map.of()).withFormat(format);
        try (OutputStream out = Files.newOutputStream(to)) {
            CaptureReplay.run(r, out);
        }
    }

    @Test
    void aRanksTableSaysItsRankHostAndBaseTimeOnEveryRowAndInItsMetadata() throws Exception {
        Path table = dir.resolve("rank1.parquet");
        Path json = dir.resolve("rank1.json");
        replay(TraceFormat.PARQUET, true, table);
        replay(TraceFormat.JSON, true, json);
        long base = TraceJson.MAPPER.readTree(json.toFile()).get("baseTimeNanoseconds").asLong();
        assertEquals(Map.of("flagtrace.schema_version", "1", "flagtrace.source", "rank1.fltrbuf",
                "flagtrace.clock", "ts_ns: nanoseconds since the epoch on the clock of host vm",
                "flagtrace.base_time_ns", Long.toString(base), "flagtrace.rank", "1"), metadata(table));
        String t = "read_parquet(" + q(table) + ")";
        assertTrue(single("SELECT COUNT(*) FROM " + t) > 100);
        assertEquals(List.of(List.of(1, 0, "vm")), query("SELECT DISTINCT rank, slot, host FROM " + t), "every row rank 1's");
    }

    @Test
    void theCaptureSpanIsThreeTimedRowsAtTheOpsWindowAndNoneWithoutOne() throws Exception {
        HostOps ops = OpsJsonlReader.read(Captures.ops(RANK1));
        Path windowed = dir.resolve("windowed.parquet");
        Path unbounded = dir.resolve("unbounded.parquet");
        replay(TraceFormat.PARQUET, true, windowed);
        replay(TraceFormat.PARQUET, false, unbounded);
        String span = " WHERE pid IS NULL AND tid IS NULL ORDER BY ts_ns, cat NULLS LAST, name";
        assertEquals(List.of(
                Arrays.asList("X", "Trace", "PyTorch Profiler (0)", ops.windowStartNs(), ops.windowEndNs() - ops.windowStartNs()),
                Arrays.asList("i", null, "Iteration Start: PyTorch Profiler", ops.windowStartNs(), null),
                Arrays.asList("i", null, "Record Window End", ops.windowEndNs(), null)),
                query("SELECT ph, cat, name, ts_ns, dur_ns FROM read_parquet(" + q(windowed) + ")" + span));
        assertEquals(List.of(), query("SELECT ph, cat, name, ts_ns, dur_ns FROM read_parquet(" + q(unbounded) + ")" + span));
    }

    @Test
    void anArrowIsTwoRowsOfOneFlowIdFromHostToDevice() throws Exception {
        Path table = dir.resolve("flows.parquet");
        replay(TraceFormat.PARQUET, true, table);
        String t = "read_parquet(" + q(table) + ")";
        long arrows = single("SELECT COUNT(*) FROM " + t + " WHERE ph = 's'");
        assertTrue(arrows > 10, "arrows " + arrows);
        assertEquals(arrows, single("SELECT COUNT(DISTINCT flow_id) FROM " + t + " WHERE ph = 's' AND cat = 'ac2g' AND name = 'ac2g'"));
        // each start has its finish: same id, on a device's row (the kernel's device as pid), at or after the launch
        assertEquals(arrows, single("SELECT COUNT(*) FROM " + t + " s JOIN " + t + " f ON f.ph = 'f' AND s.flow_id = f.flow_id"
                + " AND f.pid = 0 AND f.ts_ns >= s.ts_ns WHERE s.ph = 's'"));
        assertEquals(arrows, single("SELECT COUNT(*) FROM " + t + " WHERE ph = 'f'"));
    }

    @Test
    void aWalkWithNoEventIsATableOfNoRow() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ParquetSink sink = new ParquetSink(out, new NameTable(), new TraceHeader(null, List.of(), null, Map.of(), "flagtrace", -1),
                kind -> kind == EventKind.DRIVER ? "cuda_driver" : "cuda_runtime");
        assertEquals(0, sink.footer(new TraceFooter(-1, false, 0, 0, 0, 0, null)), "no window: no span rows");
        Path empty = Files.write(dir.resolve("empty.parquet"), out.toByteArray());
        assertEquals(0, single("SELECT COUNT(*) FROM read_parquet(" + q(empty) + ")"));
        assertEquals(Map.of("flagtrace.schema_version", "1", "flagtrace.clock",
                "ts_ns: nanoseconds since the epoch on the clock of the recording host", "flagtrace.base_time_ns", "0",
                "flagtrace.rank", "-1"), metadata(empty), "no source, no host, the rank of no rank");
        List<String> columns = query("SELECT name FROM parquet_schema(" + q(empty) + ") WHERE num_children IS NULL").stream()
                .map(r -> (String) r.get(0)).toList();
        assertEquals(EventTable.COLUMNS.stream().map(c -> c[0]).toList(), columns, "every published column, in order");
    }

    @Test
    void theMetadataNamesItsSourceHostAndRankInWords() {
        assertEquals(List.of("flagtrace.schema_version=" + EventTable.SCHEMA_VERSION, "flagtrace.source=t.fltrbuf",
                "flagtrace.clock=ts_ns: nanoseconds since the epoch on the clock of host node-7", "flagtrace.base_time_ns=-5",
                "flagtrace.rank=3"), ParquetSink.metadata(-5, "t.fltrbuf", "node-7", 3).entrySet().stream()
                .map(Object::toString).toList(), "in this order");
        assertEquals("ts_ns: nanoseconds since the epoch on the clock of the recording host",
                ParquetSink.metadata(0, null, null, -1).get("flagtrace.clock"));
    }
}
