package org.flagos.trace.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.flagos.trace.cli.SyntheticRanks;
import org.flagos.trace.encoders.EventTable;
import org.flagos.trace.sql.Analyses;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code spark.read.format("flagtrace")} ({@link FlagtraceDataSource}) against {@code flagtrace tables}, on real
 * traces: an 8-rank job built from the h200-app capture ({@link SyntheticRanks}: each rank's own trace with its
 * rank and anchors, and their merge) and HTA's public torch traces (gzipped, torch's own schema). The data source's
 * rows equal the Parquet table's, column for column, as multisets (the events table's columns; the extra ones checked
 * apart; {@code tables} sorts its rows by rank, slot and ts_ns, the data source gives them in the file's order), so the
 * finishing rule both apply ({@link org.flagos.trace.encoders.EventFacts}) is applied alike on both paths; every
 * analysis gives the same table on both; a trace without a rank, and a damaged gzip, fail naming the file.
 * Spark runs in this JVM (local[2]) and writes only inside the test's folder under target/.
 */
@Tag("spark")
class FlagtraceDataSourceTest {
    static final int RANKS = 8;

    @TempDir
    static Path dir;

    static SparkSession spark;
    static Path events;
    static Path resources;

    @BeforeAll
    static void build() throws Exception {
        events = SyntheticRanks.events(dir, RANKS, 3);
        resources = Path.of("src/test/resources");
        spark = LocalSpark.start("flagtrace-data-source", dir);
    }

    @AfterAll
    static void stop() {
        if (spark != null) {
            spark.stop();
        }
    }

    /** The events table's columns, in order. */
    private static Column[] tableColumns() {
        return EventTable.COLUMNS.stream().map(c -> new Column(c[0])).toArray(Column[]::new);
    }

    /** Both tables hold the same rows, each as often (the events table's columns only). */
    private static void assertSameRows(Dataset<Row> want, Dataset<Row> got, String what) {
        Dataset<Row> a = want.select(tableColumns());
        Dataset<Row> b = got.select(tableColumns());
        long n = a.count();
        assertTrue(n > 0, what + ": no rows");
        assertEquals(n, b.count(), what + ": rows");
        assertEquals(0, a.exceptAll(b).count(), what + ": rows of tables missing from the data source");
        assertEquals(0, b.exceptAll(a).count(), what + ": rows of the data source missing from tables");
    }

    @Test
    void theSchemaIsTheEventsTableThenTheJobTheFileAndTheOffset() {
        Dataset<Row> parquet = spark.read().parquet(events.toString());
        Dataset<Row> ds = spark.read().format("flagtrace").load(dir.resolve("merged.json").toString());
        List<String> want = new ArrayList<>(Arrays.asList(parquet.columns()));
        want.addAll(FlagtraceDataSource.EXTRA_COLUMNS);
        assertEquals(want, Arrays.asList(ds.columns()));
        for (String c : parquet.columns()) {
            assertEquals(parquet.schema().apply(c).dataType(), ds.schema().apply(c).dataType(), c);
        }
    }

    @Test
    void severalPathsInOneLoadAreReadAsOneTable() {
        String merged = dir.resolve("merged.json").toString();
        Dataset<Row> once = spark.read().format("flagtrace").load(merged);
        Dataset<Row> twice = spark.read().format("flagtrace").load(merged, merged);
        assertEquals(2 * once.count(), twice.count());
        assertEquals(0, twice.select(tableColumns()).exceptAll(once.select(tableColumns()).union(once.select(tableColumns()))).count());
    }

    @Test
    void aPathsOptionThatIsNoArrayOfStringsIsRefusedInOneLine() {
        assertEquals(List.of("a", "b c"), TraceScan.Settings.of(new CaseInsensitiveStringMap(
                Map.of("paths", "[\"a\",\"b c\"]"))).paths());
        for (String bad : List.of("[1]", "{}", "[\"a\"] x", "[\"a\"")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> TraceScan.Settings.of(new CaseInsensitiveStringMap(Map.of("paths", bad))));
            assertEquals("flagtrace: option paths is not a JSON array of paths: " + bad, e.getMessage());
        }
    }

    @Test
    void aMergedTraceGivesTheRowsOfTables() {
        Dataset<Row> ds = spark.read().format("flagtrace").load(dir.resolve("merged.json").toString());
        assertSameRows(spark.read().parquet(events.toString()), ds, "merged.json");
        assertEquals(RANKS, ds.select("rank").distinct().count());
        List<Row> extra = ds.select("job_id", "source_file", "clock_offset_ns").distinct().collectAsList();
        assertEquals(1, extra.size(), extra.toString());
        assertEquals(dir.getFileName().toString(), extra.get(0).getString(0)); // the folder holding the file, when no jobId
        assertTrue(extra.get(0).getString(1).endsWith("/merged.json"), extra.toString());
        assertEquals(0L, extra.get(0).getLong(2));
    }

    /**
     * A folder of per-rank traces (half gzipped) is one task per file and gives, row for row, the table separate
     * {@code tables --partition-by-rank} runs write for the same traces (slot 0 in each, each its own clock).
     */
    @Test
    void aFolderOfRankTracesIsOneTaskPerFileAndGivesThePartitionedTable() throws Exception {
        Path job = Files.createDirectories(dir.resolve("job7"));
        for (int r = 0; r < RANKS; r++) {
            Path trace = dir.resolve("rank" + r + ".json");
            if (r % 2 == 0) {
                try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(job.resolve("rank" + r + ".json.gz")))) {
                    Files.copy(trace, out);
                }
            } else {
                Files.copy(trace, job.resolve("rank" + r + ".json"));
            }
        }
        Files.writeString(job.resolve("_SUCCESS"), ""); // hidden, as Spark hides it
        Path parts = SyntheticRanks.partitioned(dir, RANKS);
        Dataset<Row> ds = spark.read().format("flagtrace").option("jobId", "run-42").option("clock", "trace").load(job.toString());
        assertEquals(RANKS, ds.rdd().getNumPartitions());
        assertSameRows(spark.read().parquet(parts.toString()), ds, "job7/");
        assertEquals(0, ds.filter("clock_offset_ns <> 0").count());

        // By default each rank's times go onto its host's real-time clock by its start anchor: SyntheticRanks took
        // rank r's anchor at real time R with the trace clock at R + off(r), so every row moves by -off(r).
        Dataset<Row> real = spark.read().format("flagtrace").load(job.toString());
        List<Row> offsets = real.groupBy("rank").agg(org.apache.spark.sql.functions.min("clock_offset_ns"),
                org.apache.spark.sql.functions.max("clock_offset_ns")).orderBy("rank").collectAsList();
        assertEquals(RANKS, offsets.size());
        for (int r = 0; r < RANKS; r++) {
            long off = (r % 2 == 0 ? 1 : -1) * (r * 1_000_003_007L + 37_000);
            assertEquals(-off, offsets.get(r).getLong(1), "rank " + r);
            assertEquals(-off, offsets.get(r).getLong(2), "rank " + r);
        }
        assertEquals(0, real.selectExpr("rank", "name", "ts_ns - clock_offset_ns AS t").exceptAll(ds.selectExpr("rank", "name", "ts_ns AS t")).count());
        assertEquals(ds.count(), real.count());
        List<Row> perRank = ds.groupBy("rank", "source_file", "job_id").count().orderBy("rank").collectAsList();
        assertEquals(RANKS, perRank.size());
        for (int r = 0; r < RANKS; r++) {
            assertEquals(r, perRank.get(r).getInt(0));
            assertTrue(perRank.get(r).getString(1).endsWith("/job7/rank" + r + (r % 2 == 0 ? ".json.gz" : ".json")), perRank.get(r).toString());
            assertEquals("run-42", perRank.get(r).getString(2));
        }
    }

    /** PyTorch's own traces (HTA's public test traces, gzipped; collectives, memory events, flows): the rows of tables. */
    @Test
    void torchTracesGiveTheRowsOfTables() throws Exception {
        for (String name : List.of("sampled_rank-0.json.gz", "sampled_rank-1.json.gz", "nccl_data.json.gz", "simple_add_trace.json.gz")) {
            Path trace = resources.resolve("hta").resolve(name);
            Path table = SyntheticRanks.tables(trace, dir.resolve(name + ".parquet"));
            assertSameRows(spark.read().parquet(table.toString()), spark.read().format("flagtrace").load(trace.toString()), name);
        }
    }

    /** Every analysis of the registry SparkAnalyses runs gives the same table on the data source's table as on the Parquet table. */
    @Test
    void everyAnalysisGivesTheSameTableOnTheDataSourceAsOnParquet() {
        Map<String, List<List<Object>>> parquet = collect(SparkAnalyses.run(spark, events.toString()));
        Map<String, List<List<Object>>> ds = collect(SparkAnalyses.run(spark,
                spark.read().format("flagtrace").load(dir.resolve("merged.json").toString())));
        assertEquals(Analyses.NAMES, List.copyOf(ds.keySet()));
        for (String name : Analyses.NAMES) {
            assertTrue(!parquet.get(name).isEmpty() || name.equals("step_stragglers"), name + ": no rows");
            assertEquals(parquet.get(name), ds.get(name), name);
        }
    }

    private static Map<String, List<List<Object>>> collect(Map<String, Dataset<Row>> plans) {
        Map<String, List<List<Object>>> out = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, Dataset<Row>> e : plans.entrySet()) {
            List<List<Object>> rows = new ArrayList<>();
            for (Row r : e.getValue().collectAsList()) {
                List<Object> row = new ArrayList<>();
                for (int i = 0; i < r.size(); i++) {
                    row.add(r.get(i));
                }
                rows.add(row);
            }
            rows.sort(java.util.Comparator.comparing(Object::toString));
            out.put(e.getKey(), rows);
        }
        return out;
    }

    /** A torch trace without a rank is an error naming the file; option rankFromPath gives the rank from its name. */
    @Test
    void aTraceWithoutARankFailsNamingTheFileUnlessItsPathGivesOne() throws Exception {
        Path unranked = Files.copy(resources.resolve("torch-reference/torch_trace.json"), Files.createDirectories(dir.resolve("unranked"))
                .resolve("host-rank5.pt.trace.json"));
        String why = failure(() -> spark.read().format("flagtrace").load(unranked.toString()).count());
        assertTrue(why.contains(unranked.toString() + " names no rank"), why);
        Dataset<Row> ds = spark.read().format("flagtrace").option("rankFromPath", "rank(\\d+)\\.").load(unranked.toString());
        List<Row> ranks = ds.groupBy("rank").count().collectAsList();
        assertEquals(1, ranks.size(), ranks.toString());
        assertEquals(5, ranks.get(0).getInt(0));
        Path table = SyntheticRanks.tables(unranked, dir.resolve("unranked.parquet"));
        assertEquals(spark.read().parquet(table.toString()).count(), ranks.get(0).getLong(1));
        String other = failure(() -> spark.read().format("flagtrace").option("rankFromPath", "nothing(\\d+)").load(unranked.toString()).count());
        assertTrue(other.contains(unranked + " names no rank") && other.contains("does not match"), other);
    }

    /** A damaged gzip fails naming the file; with mode DROPMALFORMED it is left out whole and counted, the others read. */
    @Test
    void aDamagedGzipFailsNamingTheFileOrIsSkippedAndCounted() throws Exception {
        Path bad = Files.createDirectories(dir.resolve("bad"));
        Path good = Files.copy(dir.resolve("rank1.json"), bad.resolve("rank1.json"));
        Path gz = bad.resolve("rank0.json.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
            Files.copy(dir.resolve("rank0.json"), out);
        }
        byte[] bytes = Files.readAllBytes(gz);
        for (int i = bytes.length / 2; i < bytes.length / 2 + 64; i++) {
            bytes[i] ^= 0x5a;
        }
        Files.write(gz, bytes);
        String why = failure(() -> spark.read().format("flagtrace").load(bad.toString()).count());
        assertTrue(why.contains(gz.toString() + " is not a whole gzip file") || why.contains(gz + " is not valid JSON"), why);

        Dataset<Row> ds = spark.read().format("flagtrace").option("mode", "DROPMALFORMED").load(bad.toString());
        List<Row> rows = ds.collectAsList();
        assertEquals(spark.read().format("flagtrace").load(good.toString()).count(), rows.size());
        assertEquals(1L, skippedFiles(ds));
        assertEquals(0L, skippedFiles(spark.read().format("flagtrace").option("mode", "DROPMALFORMED").load(good.toString())));
    }

    /** The scan's skippedFiles metric after the table is collected. */
    static long skippedFiles(Dataset<Row> ds) {
        ds.collectAsList();
        SparkPlan plan = ds.queryExecution().executedPlan();
        for (SparkPlan leaf : scala.jdk.javaapi.CollectionConverters.asJava(plan.collectLeaves())) {
            if (leaf.metrics().contains(TraceScan.SkippedFiles.NAME)) {
                return leaf.metrics().apply(TraceScan.SkippedFiles.NAME).value();
            }
        }
        throw new AssertionError("no skippedFiles metric in " + plan);
    }

    /** The messages of what {@code run} throws and its causes, in one string. */
    private static String failure(org.junit.jupiter.api.function.Executable run) {
        Throwable t = assertThrows(Throwable.class, run);
        StringBuilder s = new StringBuilder();
        for (; t != null; t = t.getCause()) {
            s.append(t.getMessage()).append(" | ");
        }
        return s.toString();
    }
}
