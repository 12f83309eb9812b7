package org.flagos.trace.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.flagos.trace.cli.SyntheticRanks;
import org.flagos.trace.sql.DuckDbAnalyses;
import org.flagos.trace.sql.ResultTable;
import org.flagos.trace.encoders.EventTable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The spark-submit entry point's work ({@link SparkAnalyses#write}, {@link AnalysesRequest}) on Spark local[2] over a
 * 4-rank job built from the real h200-app capture ({@link SyntheticRanks}, rank 2 the straggler): traces read once by
 * the data source into a {@code rank=N/} table, each analysis written per table as Spark writes it (Parquet or the CSV
 * {@code flagtrace analyze} writes), equal to DuckDB's over the {@code tables --partition-by-rank} folder; a caller's own
 * {@code events} view is left as it was.
 */
@Tag("spark")
class SparkAnalysesTest {
    static final int RANKS = 4;

    @TempDir
    static Path dir;

    static SparkSession spark;
    static Path parts;

    @BeforeAll
    static void build() throws Exception {
        SyntheticRanks.events(dir, RANKS, 2);
        parts = SyntheticRanks.partitioned(dir, RANKS);
        spark = LocalSpark.start("flagtrace-analyses-entry", dir);
    }

    @AfterAll
    static void stop() {
        if (spark != null) {
            spark.stop();
        }
    }

    private static ResultTable duckDb(String name) throws Exception {
        try (DuckDbAnalyses d = DuckDbAnalyses.open(parts)) {
            return d.run(name);
        }
    }

    @Test
    void tracesAreReadOnceIntoARankTableAndEachAnalysisIsDuckDbs() throws Exception {
        Path job = Files.createDirectories(dir.resolve("job"));
        for (int r = 0; r < RANKS; r++) {
            Files.copy(dir.resolve("rank" + r + ".json"), job.resolve("rank" + r + ".json"));
        }
        Path out = dir.resolve("out-traces");
        List<String> names = List.of("rank_steps", "rank_device", "kernel_stats", "critical_path");
        Map<String, String> written = SparkAnalyses.write(spark, AnalysesRequest.parse("--traces", "--clock", "trace",
                "--format", "parquet", "--only", "kernel_stats,critical_path,rank_device,rank_steps", job.toString(), out.toString()));

        List<String> want = new ArrayList<>(List.of("events"));
        want.addAll(names);
        assertEquals(want, List.copyOf(written.keySet()));
        try (Stream<Path> folders = Files.list(out)) {
            assertEquals(new TreeSet<>(want), new TreeSet<>(folders.map(p -> p.getFileName().toString()).toList()));
        }
        for (int r = 0; r < RANKS; r++) {
            assertTrue(Files.isDirectory(out.resolve("events").resolve("rank=" + r)), "rank=" + r);
        }
        Column[] columns = EventTable.COLUMNS.stream().map(c -> new Column(c[0])).toArray(Column[]::new);
        Dataset<Row> read = spark.read().parquet(out.resolve("events").toString()).select(columns);
        Dataset<Row> tables = spark.read().parquet(parts.toString()).select(columns);
        assertEquals(tables.count(), read.count());
        assertEquals(0, read.exceptAll(tables).count());
        assertEquals(0, tables.exceptAll(read).count());

        for (String name : names) {
            ResultTable duck = duckDb(name);
            ResultTable got = SqlEnginesIdentityTest.table(name, spark.read().parquet(out.resolve(name).toString()).select(
                    duck.columns().stream().map(Column::new).toArray(Column[]::new)));
            assertFalse(duck.rows().isEmpty(), name);
            assertEquals(SqlEnginesIdentityTest.sorted(duck.rows()), SqlEnginesIdentityTest.sorted(got.rows()), name);
        }
    }

    /**
     * Each part holds a header and its rows as `flagtrace analyze` writes them: kernel names with commas, and (renamed
     * here) with a quote inside and spaces around, which Spark's CSV defaults would escape with a backslash and trim.
     */
    @Test
    void csvPartsHoldTheLinesAnalyzeWrites() throws Exception {
        Path odd = dir.resolve("odd");
        spark.read().parquet(parts.toString())
                .withColumn("name", functions.when(functions.col("cat").equalTo("kernel"),
                        functions.concat(functions.lit(" "), functions.col("name"), functions.lit(" \"q\" ")))
                        .otherwise(functions.col("name")))
                .write().partitionBy("rank").parquet(odd.resolve("events").toString());
        Path out = dir.resolve("out-csv");
        SparkAnalyses.write(spark, AnalysesRequest.parse("--only", "kernel_stats,rank_ops", odd.toString(), out.toString()));
        for (String name : List.of("kernel_stats", "rank_ops")) {
            ResultTable duck;
            try (DuckDbAnalyses d = DuckDbAnalyses.open(odd)) {
                duck = d.run(name);
            }
            String header = ResultTable.csvLine(duck.columns());
            List<String> want = new ArrayList<>();
            for (List<Object> row : duck.rows()) {
                want.add(ResultTable.csvLine(row));
            }
            List<String> got = new ArrayList<>();
            int files = 0;
            try (Stream<Path> each = Files.list(out.resolve(name))) {
                for (Path part : each.filter(p -> p.getFileName().toString().endsWith(".csv")).toList()) {
                    files++;
                    List<String> lines = Files.readAllLines(part);
                    assertEquals(header, lines.get(0) + "\n", part.toString());
                    lines.subList(1, lines.size()).forEach(l -> got.add(l + "\n"));
                }
            }
            assertTrue(files > 0, name);
            assertTrue(want.stream().anyMatch(l -> l.contains(",\" ") && l.contains("\"\"q\"\" \"")), name + ": no renamed kernel compared");
            want.sort(null);
            got.sort(null);
            assertEquals(want, got, name);
        }
    }

    @Test
    void aCallersEventsViewIsPutBackAndNoneIsLeftWhereThereWasNone() throws Exception {
        spark.read().parquet(parts.toString()).createOrReplaceTempView("job_events");
        spark.range(3).createOrReplaceTempView("events");
        Path out = dir.resolve("out-table");
        SparkAnalyses.write(spark, AnalysesRequest.parse("--table", "--format", "parquet", "--only", "rank_device", "job_events", out.toString()));
        assertEquals(3, spark.table("events").count());
        ResultTable duck = duckDb("rank_device");
        ResultTable got = SqlEnginesIdentityTest.table("rank_device", spark.read().parquet(out.resolve("rank_device").toString())
                .select(duck.columns().stream().map(Column::new).toArray(Column[]::new)));
        assertEquals(SqlEnginesIdentityTest.sorted(duck.rows()), SqlEnginesIdentityTest.sorted(got.rows()));

        spark.catalog().dropTempView("events");
        SparkAnalyses.run(spark, spark.table("job_events"), List.of("rank_steps"));
        assertFalse(spark.catalog().tableExists("events"));
    }

    @Test
    void anOutputThatExistsIsRefusedAndLeftAsItWas() throws Exception {
        Path out = Files.createDirectories(dir.resolve("out-exists").resolve("rank_device"));
        Files.writeString(out.resolve("mine.txt"), "keep");
        Exception e = assertThrows(Exception.class, () -> SparkAnalyses.write(spark,
                AnalysesRequest.parse("--only", "rank_device", parts.toString(), out.getParent().toString())));
        assertTrue(String.valueOf(e.getMessage()).contains("rank_device"), e.getMessage());
        assertEquals("keep", Files.readString(out.resolve("mine.txt")));
    }

    @Test
    void aRunThatFailsLeavesNoTableBehind() throws Exception {
        Path job = Files.createDirectories(dir.resolve("job-truncated"));
        Files.copy(dir.resolve("rank0.json"), job.resolve("rank0.json"));
        byte[] whole = Files.readAllBytes(dir.resolve("rank1.json"));
        Files.write(job.resolve("rank1.json"), java.util.Arrays.copyOf(whole, whole.length / 2));

        Path fresh = dir.resolve("out-failed");
        Exception e = assertThrows(Exception.class, () -> SparkAnalyses.write(spark,
                AnalysesRequest.parse("--traces", "--clock", "trace", "--only", "rank_device", job.toString(), fresh.toString())));
        assertTrue(String.valueOf(e.getMessage()).contains("rank1.json"), e.getMessage());
        assertFalse(Files.exists(fresh), () -> "a failed run's output folder: " + listing(fresh));

        Path kept = Files.createDirectories(dir.resolve("out-kept"));
        Files.writeString(kept.resolve("mine.txt"), "keep");
        assertThrows(Exception.class, () -> SparkAnalyses.write(spark,
                AnalysesRequest.parse("--traces", "--clock", "trace", "--only", "rank_device", job.toString(), kept.toString())));
        try (Stream<Path> left = Files.list(kept)) {
            assertEquals(List.of("mine.txt"), left.map(p -> p.getFileName().toString()).toList());
        }
        assertEquals("keep", Files.readString(kept.resolve("mine.txt")));
    }

    private static String listing(Path folder) {
        try (Stream<Path> all = Files.walk(folder)) {
            return all.map(folder::relativize).map(Path::toString).sorted().toList().toString();
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }
}
