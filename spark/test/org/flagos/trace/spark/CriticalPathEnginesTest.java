package org.flagos.trace.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.flagos.trace.cli.CriticalPathRecountTest;
import org.flagos.trace.sql.Analyses;
import org.flagos.trace.sql.CriticalPath;
import org.flagos.trace.sql.CriticalPathSweepTest;
import org.flagos.trace.sql.CriticalPathTest;
import org.flagos.trace.sql.DuckDbAnalyses;
import org.flagos.trace.sql.ResultTable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * critical_path and critical_path_segments (CriticalPath's steps and its sweep, the same SQL text) on DuckDB and on
 * Spark in local mode give the same tables, row for row: on the hand-built ranks of CriticalPathTest
 * (host-bound, device-bound, a stream sync), on three ranks of one all-reduce with a late rank (the
 * collective's edges between ranks) and on HTA's simple_add trace (1,211 edges on its path,
 * syncs and launches on two streams), and on a rank whose sync edge goes back in time (the rounds settle it on
 * both, not the sweep). Spark runs in this JVM (local[2], no UI, the loopback) and
 * writes only inside the test's folder under target/.
 */
@Tag("spark")
class CriticalPathEnginesTest {
    @TempDir
    static Path dir;

    static SparkSession spark;

    @BeforeAll
    static void start() {
        spark = LocalSpark.start("flagtrace-critical-path", dir);
    }

    @AfterAll
    static void stop() {
        if (spark != null) {
            spark.stop();
        }
    }

    private static void same(Path events) throws Exception {
        List<ResultTable> duck = new ArrayList<>();
        CriticalPath.Rounds rounds;
        try (DuckDbAnalyses d = DuckDbAnalyses.open(events)) {
            rounds = d.criticalPath();
            for (String name : CriticalPath.TABLES) {
                duck.add(d.run(name));
            }
        }
        long began = System.nanoTime();
        spark.read().parquet(events.toString()).createOrReplaceTempView(Analyses.INPUT_TABLE);
        CriticalPath.Rounds sparkRounds = CriticalPath.build(SparkAnalyses.engine(spark));
        assertEquals(rounds, sparkRounds, "the same rounds on both engines");
        for (ResultTable a : duck) {
            List<String> columns = Arrays.asList(spark.sql(Analyses.sql(a.name())).columns());
            List<List<Object>> rows = new ArrayList<>();
            for (Row r : spark.sql(Analyses.sql(a.name())).collectAsList()) {
                List<Object> row = new ArrayList<>();
                for (int i = 0; i < r.size(); i++) {
                    row.add(DuckDbAnalyses.value(r.get(i), a.name(), columns.get(i)));
                }
                rows.add(row);
            }
            assertEquals(a.columns(), columns, a.name());
            assertTrue(!a.rows().isEmpty(), a.name());
            assertEquals(sorted(a.rows()), sorted(rows), a.name());
        }
        System.out.printf("critical path of %s: %d relaxation rounds, %d walk steps, cp_nodes in %d statements, cp_segments in %d;"
                + " Spark local[2] %.1f s%n", events.getFileName(), rounds.relaxations(), rounds.walkSteps(), rounds.nodeSlices(),
                rounds.segmentSlices(), (System.nanoTime() - began) / 1e9);
    }

    @Test
    void handBuiltRanksGiveTheSameTablesOnDuckDbAndSpark() throws Exception {
        List<CriticalPathTest.Ev> all = new ArrayList<>();
        all.addAll(CriticalPathTest.hostBound(0));
        all.addAll(CriticalPathTest.deviceBound(1));
        all.addAll(CriticalPathTest.streamSync(2));
        same(CriticalPathTest.write(Files.createDirectories(dir.resolve("hand")), "events", all));
    }

    @Test
    void aStragglerAcrossRanksGivesTheSameTablesOnDuckDbAndSpark() throws Exception {
        // CriticalPathRecountTest's three ranks of one all-reduce step, rank 1 late: ranks 0 and 2's paths
        // run through rank 1's work over the collective's edges (cp_arrivals, from the collectives table)
        List<CriticalPathTest.Ev> all = new ArrayList<>();
        all.addAll(CriticalPathRecountTest.allReduceStep(0, 1000));
        all.addAll(CriticalPathRecountTest.allReduceStep(1, 4000));
        all.addAll(CriticalPathRecountTest.allReduceStep(2, 1000));
        Path events = CriticalPathTest.write(Files.createDirectories(dir.resolve("straggler")), "events", all);
        same(events);
        long elsewhere = spark.sql("SELECT COUNT(*) FROM cp_segments WHERE on_rank <> rank").first().getLong(0);
        assertEquals(8, elsewhere, "ranks 0 and 2 each have 4 edges of rank 1's on their path, on Spark as on DuckDB");
    }

    @Test
    void anEdgeBackInTimeGivesTheSameTablesOnDuckDbAndSpark() throws Exception {
        // no order in time settles it: the sweep says so on both engines and the rounds settle it on both (same() holds
        // Spark's Rounds to DuckDB's, swept false there: CriticalPathSweepTest)
        same(CriticalPathTest.write(Files.createDirectories(dir.resolve("back")), "events", CriticalPathSweepTest.syncBackInTime(2)));
    }

    @Test
    void htasSimpleAddTraceGivesTheSameTablesOnDuckDbAndSpark() throws Exception {
        same(CriticalPathRecountTest.simpleAddEvents(dir));
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static List<List<Object>> sorted(List<List<Object>> rows) {
        List<List<Object>> s = new ArrayList<>(rows);
        s.sort((a, b) -> {
            for (int i = 0; i < a.size(); i++) {
                Object x = a.get(i);
                Object y = b.get(i);
                int c = x == null ? (y == null ? 0 : -1) : y == null ? 1 : ((Comparable) x).compareTo(y);
                if (c != 0) {
                    return c;
                }
            }
            return 0;
        });
        return s;
    }
}
