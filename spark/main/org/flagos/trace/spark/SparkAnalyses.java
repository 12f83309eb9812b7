package org.flagos.trace.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.flagos.trace.sql.Analyses;
import org.flagos.trace.sql.CriticalPath;

/**
 * The SQL analyses ({@link Analyses}, the same .sql files the CLI runs on DuckDB) on Apache Spark,
 * for events tables too large for one machine: the {@code spark-submit} entry point of the spark
 * jar (docs/analysis.md). Nothing here is distributed by hand: Spark plans and runs each query.
 *
 * <pre>
 * spark-submit --class org.flagos.trace.spark.SparkAnalyses flagtrace-VERSION-spark.jar EVENTS OUT
 * </pre>
 * EVENTS: a Parquet events table (a file or a folder of files, local or any file system Spark
 * reads; a folder of {@code rank=N/} partitions, as {@code flagtrace tables --partition-by-rank}
 * writes it, is read with its ranks by Spark's own partition discovery); OUT: a folder that must not exist, given one CSV table per analysis (OUT/NAME/part-*.csv,
 * with a header line).
 */
public final class SparkAnalyses {
    private SparkAnalyses() {
    }

    /**
     * Registers {@code events} as the input table, computes the critical path's rounds
     * ({@link CriticalPath}: each step's result checkpointed as a temporary view, so the rounds do
     * not grow one plan), and plans every analysis, by name, in order.
     */
    public static Map<String, Dataset<Row>> run(SparkSession spark, String events) {
        return run(spark, spark.read().parquet(events));
    }

    /**
     * As {@link #run(SparkSession, String)}, over any events table: one read by the {@code flagtrace} data source
     * ({@code spark.read().format("flagtrace").load(traces...)}, {@link FlagtraceDataSource}) straight from the traces.
     */
    public static Map<String, Dataset<Row>> run(SparkSession spark, Dataset<Row> events) {
        events.createOrReplaceTempView(Analyses.INPUT_TABLE);
        try {
            CriticalPath.build(engine(spark));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, Dataset<Row>> out = new LinkedHashMap<>();
        for (String name : Analyses.NAMES) {
            out.put(name, spark.sql(Analyses.sql(name)));
        }
        return out;
    }

    /** {@link CriticalPath}'s steps on Spark: a table is a temporary view of the step's result, computed once. */
    static CriticalPath.Engine engine(SparkSession spark) {
        return new CriticalPath.Engine() {
            @Override
            public void table(String name, String select) {
                spark.sql(select).localCheckpoint().createOrReplaceTempView(name);
            }

            @Override
            public long count(String select) {
                return ((Number) spark.sql(select).first().get(0)).longValue();
            }

            @Override
            public void drop(String name) {
                spark.catalog().dropTempView(name);
            }
        };
    }

    /** {@code EVENTS OUT}: writes each analysis as one CSV file under OUT/NAME/. */
    public static void main(String[] args) {
        if (args.length != 2) {
            System.err.println("usage: spark-submit --class " + SparkAnalyses.class.getName() + " flagtrace-VERSION-spark.jar EVENTS OUT");
            System.exit(2);
        }
        SparkSession spark = SparkSession.builder().appName("flagtrace analyses").getOrCreate();
        try {
            for (Map.Entry<String, Dataset<Row>> e : run(spark, args[0]).entrySet()) {
                // one file per table: the results are small (a row per rank, step or op name)
                e.getValue().coalesce(1).write().mode(SaveMode.ErrorIfExists).option("header", "true")
                        .csv(args[1] + "/" + e.getKey());
                System.out.println("wrote " + args[1] + "/" + e.getKey());
            }
        } finally {
            spark.stop();
        }
    }
}
