package org.flagos.trace.cli;

import static org.flagos.trace.testing.TableRows.q;
import static org.flagos.trace.testing.TableRows.query;
import static org.flagos.trace.testing.TableRows.single;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.ingest.OpsJsonlReader;
import org.flagos.trace.model.ClockAnchor;
import org.flagos.trace.model.ProcessFacts;
import org.flagos.trace.model.ProcessIdentity;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The events table (docs/tables.md) of real H200 captures, read back with DuckDB and recounted from
 * the JSON trace of the same capture with Jackson's tree: every timed event a row, per category the
 * count and the summed durations, the External id/correlation pairs; the trace walk's table
 * ({@code replay -o NAME.parquet}) row for row the same as {@code tables} of the JSON trace; a merge's
 * rows each under their own process's rank; bad input one line, a nonzero exit and no file left.
 */
class TablesTest {
    @TempDir
    Path dir;

    private final CliRunner cli = new CliRunner();

    /** What a recount of a JSON trace's tree says the table must hold. */
    private static final class Recount {
        long rows;
        final TreeMap<String, long[]> perCategory = new TreeMap<>(); // count, summed dur ns
        final TreeSet<String> pairs = new TreeSet<>(); // "external_id/correlation"
        final TreeSet<Long> pids = new TreeSet<>();
    }

    private static Recount recount(JsonNode trace) {
        Recount r = new Recount();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("M".equals(e.path("ph").asText()) || !e.has("ts")) {
                continue;
            }
            r.rows++;
            String cat = e.has("cat") ? e.get("cat").asText() : "(none)";
            long[] c = r.perCategory.computeIfAbsent(cat, k -> new long[2]);
            c[0]++;
            if (e.has("dur")) {
                c[1] += new BigDecimal(e.get("dur").asText()).movePointRight(3).longValueExact();
            }
            JsonNode args = e.path("args");
            if (args.has("External id") && args.has("correlation")) {
                r.pairs.add(args.get("External id").asLong() + "/" + args.get("correlation").asLong());
            }
            if (e.path("pid").isIntegralNumber()) {
                r.pids.add(e.get("pid").asLong());
            }
        }
        return r;
    }

    private static void assertTableIs(Recount want, Path parquet, String where) throws Exception {
        assertEquals(want.rows, single("SELECT count(*) FROM " + q(parquet) + where), "rows");
        TreeMap<String, long[]> got = new TreeMap<>();
        for (List<Object> row : query("SELECT coalesce(cat, '(none)'), count(*), coalesce(sum(dur_ns), 0) FROM " + q(parquet) + where
                + " GROUP BY 1")) {
            got.put((String) row.get(0), new long[] {((Number) row.get(1)).longValue(), ((Number) row.get(2)).longValue()});
        }
        assertEquals(want.perCategory.keySet(), got.keySet(), "categories");
        for (String cat : want.perCategory.keySet()) {
            assertEquals(want.perCategory.get(cat)[0], got.get(cat)[0], cat + " count");
            assertEquals(want.perCategory.get(cat)[1], got.get(cat)[1], cat + " summed dur_ns");
        }
        TreeSet<String> pairs = new TreeSet<>();
        for (List<Object> row : query("SELECT external_id || '/' || correlation FROM " + q(parquet) + where
                + (where.isEmpty() ? " WHERE" : " AND") + " external_id IS NOT NULL AND correlation IS NOT NULL")) {
            pairs.add((String) row.get(0));
        }
        assertEquals(want.pairs, pairs, "External id/correlation pairs");
    }

    @ParameterizedTest
    @ValueSource(strings = {"h200-app-tiny2k", "h200-mt4", "h200-java-kinds/h200-java-kinds", "h200-managed/h200-managed"})
    void theWalksTableIsTheJsonTracesRowsAndMatchesARecount(String capture) throws Exception {
        Path fltrbuf = Captures.dir().resolve(capture + ".fltrbuf");
        Path json = dir.resolve("t.json");
        Path walked = dir.resolve("walked.parquet");
        Path read = dir.resolve("read.parquet");
        assertEquals(0, cli.run("replay", fltrbuf.toString(), "-o", json.toString()), cli.stderr());
        assertEquals(0, cli.run("replay", fltrbuf.toString(), "-o", walked.toString()), cli.stderr());
        assertTrue(cli.stdout().contains("wrote " + walked + " ("), cli.stdout());
        assertEquals(0, cli.run("tables", json.toString(), "-o", read.toString()), cli.stderr());

        assertEquals(0, single("SELECT count(*) FROM (SELECT * FROM " + q(walked) + " EXCEPT ALL SELECT * FROM " + q(read) + ")"));
        assertEquals(0, single("SELECT count(*) FROM (SELECT * FROM " + q(read) + " EXCEPT ALL SELECT * FROM " + q(walked) + ")"));
        JsonNode tree = TraceJson.MAPPER.readTree(json.toFile());
        Recount want = recount(tree);
        assertTableIs(want, walked, "");
        assertTrue(cli.stdout().contains("(" + want.rows + " rows from 1 trace"), cli.stdout());
        // a trace that names no rank: -1, slot 0, on every row; times exact from baseTimeNanoseconds + ts
        assertEquals(want.rows, single("SELECT count(*) FROM " + q(walked) + " WHERE rank = -1 AND slot = 0 AND host IS NULL"));
        JsonNode first = null;
        for (JsonNode e : tree.get("traceEvents")) {
            if ("X".equals(e.path("ph").asText()) && "cuda_runtime".equals(e.path("cat").asText())) {
                first = e;
                break;
            }
        }
        long ts = tree.get("baseTimeNanoseconds").asLong() + new BigDecimal(first.get("ts").asText()).movePointRight(3).longValueExact();
        assertEquals(1, single("SELECT count(*) FROM " + q(walked) + " WHERE cat = 'cuda_runtime' AND ts_ns = " + ts
                + " AND correlation = " + first.get("args").get("correlation").asLong()));
        assertFalse(leftovers(), "scratch files left: " + List.of(dir.toFile().list()));
    }

    @Test
    void torchsOwnTraceIsReadToo() throws Exception {
        Path torch = Captures.dir().resolve("h200-kinds/h200-kinds.torch.pt.trace.json.gz");
        Path out = dir.resolve("torch.parquet");
        assertEquals(0, cli.run("tables", torch.toString(), "-o", out.toString()), cli.stderr());
        JsonNode tree;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(torch))) {
            tree = TraceJson.MAPPER.readTree(in);
        }
        Recount want = recount(tree);
        assertTableIs(want, out, "");
        int rank = tree.has("distributedInfo") ? tree.get("distributedInfo").get("rank").asInt() : -1;
        assertEquals(want.rows, single("SELECT count(*) FROM " + q(out) + " WHERE rank = " + rank));
        assertTrue(single("SELECT count(*) FROM " + q(out) + " WHERE cat = 'gpu_memcpy' AND copy_kind IS NOT NULL") > 0);
    }

    /** h200-app twice and h200-mt4, replayed as ranks 2, 0 and 1 of one job on host-R. */
    private Path rankTrace(int rank, String capture) throws Exception {
        long real = 1_795_982_694_000_000_000L;
        ProcessFacts facts = new ProcessFacts(new ProcessIdentity(rank, 3, rank, 3, "host-" + rank, 4000 + rank, "boot"),
                List.of(new ClockAnchor("start", real, 1_000 + rank, real, 100)));
        CaptureReplay.Request request = CaptureReplay.Request.of(CaptureBytes.load(Captures.capture(capture)), capture)
                .ops(OpsJsonlReader.read(Captures.ops(capture)))
                .kernelNames(KernelNameFile.read(Captures.names(capture))).devices(TestDevices.h200()).ringSize(1 << 12)
                .build().withProcess(facts);
        Path out = dir.resolve("rank" + rank + ".json");
        Files.write(out, TraceJson.replay(request).bytes());
        return out;
    }

    @Test
    void aMergedTracesRowsEachCarryTheirOwnProcesssRank() throws Exception {
        Map<Integer, Path> ranks = new TreeMap<>(Map.of(2, rankTrace(2, "h200-app-tiny2k"), 0, rankTrace(0, "h200-app"),
                1, rankTrace(1, "h200-mt4")));
        Path merged = dir.resolve("merged.json");
        assertEquals(0, cli.run("merge", ranks.get(2).toString(), ranks.get(0).toString(), ranks.get(1).toString(), "-o",
                merged.toString()), cli.stderr());
        Path table = dir.resolve("merged.parquet");
        assertEquals(0, cli.run("tables", merged.toString(), "-o", table.toString()), cli.stderr());
        assertEquals(3, single("SELECT count(DISTINCT slot) FROM " + q(table)));
        long total = 0;
        for (Map.Entry<Integer, Path> r : ranks.entrySet()) {
            Recount own = recount(TraceJson.MAPPER.readTree(r.getValue().toFile()));
            String where = " WHERE rank = " + r.getKey();
            // per category the same events and durations as the process's own trace (merge renumbers ids, not times' lengths)
            assertEquals(own.rows, single("SELECT count(*) FROM " + q(table) + where), "rank " + r.getKey());
            for (Map.Entry<String, long[]> c : own.perCategory.entrySet()) {
                assertEquals(c.getValue()[0], single("SELECT count(*) FROM " + q(table) + where + " AND coalesce(cat, '(none)') = '"
                        + c.getKey() + "'"), "rank " + r.getKey() + " " + c.getKey());
                assertEquals(c.getValue()[1], single("SELECT coalesce(sum(dur_ns), 0) FROM " + q(table) + where
                        + " AND coalesce(cat, '(none)') = '" + c.getKey() + "'"), "rank " + r.getKey() + " " + c.getKey());
            }
            // the process's own pids, host on every row
            TreeSet<Long> pids = new TreeSet<>();
            for (List<Object> row : query("SELECT DISTINCT pid FROM " + q(table) + where + " AND pid IS NOT NULL")) {
                pids.add(((Number) row.get(0)).longValue());
            }
            assertEquals(own.pids, pids, "rank " + r.getKey() + " pids");
            assertEquals(own.rows, single("SELECT count(*) FROM " + q(table) + where + " AND host = 'host-" + r.getKey() + "'"));
            // the process's own table, alone, says the same rank
            Path alone = dir.resolve("alone" + r.getKey() + ".parquet");
            assertEquals(0, cli.run("tables", r.getValue().toString(), "-o", alone.toString()), cli.stderr());
            assertEquals(own.rows, single("SELECT count(*) FROM " + q(alone) + where + " AND host = 'host-" + r.getKey() + "'"));
            total += own.rows;
        }
        assertEquals(total, single("SELECT count(*) FROM " + q(table)), "every row under one of the three ranks");
        // an arrow's two ends stay in one rank
        assertEquals(0, single("SELECT count(*) FROM (SELECT flow_id FROM " + q(table) + " WHERE flow_id IS NOT NULL"
                + " GROUP BY flow_id HAVING count(DISTINCT rank) > 1 OR count(*) <> 2)"));
        // several unmerged traces: each its own slot, under its rank
        Path three = dir.resolve("three.parquet");
        assertEquals(0, cli.run("tables", ranks.get(2).toString(), ranks.get(0).toString(), ranks.get(1).toString(), "-o",
                three.toString()), cli.stderr());
        assertEquals(List.of(List.of(0, 2), List.of(1, 0), List.of(2, 1)),
                query("SELECT DISTINCT slot, rank FROM " + q(three) + " ORDER BY slot"));
        assertFalse(leftovers(), "scratch files left: " + List.of(dir.toFile().list()));
    }

    @Test
    void aTraceWithoutTimedEventsIsATableWithEveryColumnAndNoRow() throws Exception {
        Path json = dir.resolve("t.json");
        assertEquals(0, cli.run("replay", Captures.capture("h200-app-tiny2k").toString(), "-o", json.toString()), cli.stderr());
        Path full = dir.resolve("full.parquet");
        assertEquals(0, cli.run("tables", json.toString(), "-o", full.toString()), cli.stderr());
        String columns = "SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM ";
        for (String empty : List.of("[]", "{\"traceEvents\":[]}", "{\"traceEvents\":[{\"ph\":\"M\",\"name\":\"process_name\","
                + "\"pid\":1,\"tid\":0,\"args\":{\"name\":\"p\"}}]}")) {
            Path in = Files.writeString(dir.resolve("empty.json"), empty);
            Path table = dir.resolve("empty.parquet");
            assertEquals(0, cli.run("tables", in.toString(), "-o", table.toString()), empty + ": " + cli.stderr());
            assertEquals(0, single("SELECT count(*) FROM " + q(table)), empty);
            assertEquals(query(columns + q(full) + ")"), query(columns + q(table) + ")"), empty + ": the columns");
            Files.delete(table);
        }
        assertFalse(leftovers(), "scratch files left: " + List.of(dir.toFile().list()));
    }

    @Test
    void badInputIsOneLineANonzeroExitAndNoFile() throws Exception {
        Path json = dir.resolve("t.json");
        assertEquals(0, cli.run("replay", Captures.capture("h200-app-tiny2k").toString(), "-o", json.toString()), cli.stderr());
        byte[] whole = Files.readAllBytes(json);
        Path cut = Files.write(dir.resolve("cut.json"), java.util.Arrays.copyOf(whole, whole.length / 2));
        Path text = Files.writeString(dir.resolve("notes.txt"), "not a trace\n");
        Path out = dir.resolve("out.parquet");

        assertFails(1, "ends in the middle", "tables", cut.toString(), "-o", out.toString());
        assertFails(1, "is not valid JSON", "tables", text.toString(), "-o", out.toString());
        assertFails(1, "no such file", "tables", dir.resolve("missing.json").toString(), "-o", out.toString());
        assertFails(2, "refusing to overwrite an input", "tables", json.toString(), "-o", json.toString());
        assertFails(2, "name it .parquet", "tables", json.toString(), "-o", dir.resolve("out.json").toString());
        assertFails(1, "does not exist", "tables", json.toString(), "-o", dir.resolve("no/such/dir/out.parquet").toString());
        Path merged = dir.resolve("merged.json");
        assertEquals(0, cli.run("merge", json.toString(), "--assume-aligned", "-o", merged.toString()), cli.stderr());
        assertFails(1, "give it alone", "tables", json.toString(), merged.toString(), "-o", out.toString());
        assertFails(1, "give the merged trace alone", "tables", merged.toString(), json.toString(), "-o", out.toString());
        assertFails(2, "a trace file's name ends in", "replay", Captures.capture("h200-app-tiny2k").toString(), "-o",
                dir.resolve("x.parquet.gz").toString());
        StringBuilder pids = new StringBuilder();
        for (int pid = 1; pid <= 1_000; pid++) {
            pids.append(pid == 1 ? "" : ",").append('"').append(pid).append("\":").append(1_000 + pid);
        }
        Path hostile = Files.writeString(dir.resolve("hostile.json"), "{\"flagtrace_merge\":{\"pid_stride\":1000,\"inputs\":"
                + "[{\"slot\":0,\"rank\":0,\"pids\":{" + pids + "}}]},\"traceEvents\":[]}");
        assertFails(1, "lists more than 999 pids for one input", "tables", hostile.toString(), "-o", out.toString());
        assertFalse(Files.exists(out));
        assertFalse(leftovers(), "files left: " + List.of(dir.toFile().list()));
    }

    private void assertFails(int code, String says, String... args) {
        assertEquals(code, cli.run(args), cli.stderr());
        String err = cli.stderr();
        assertEquals(1, err.lines().count(), err);
        assertTrue(err.contains(says), err);
        assertTrue(cli.stdout().isEmpty(), cli.stdout());
    }

    /** Any Parquet file or DuckDB scratch left in the test's folder (outputs of passing steps aside). */
    private boolean leftovers() throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString())
                    .anyMatch(n -> n.startsWith(".flagtrace-events") || n.endsWith(".partial") || n.equals("out.parquet"));
        }
    }
}
