package org.flagos.trace.spark;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.flagos.trace.sql.Analyses;

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

    /** Registers {@code events} as the input table and plans every analysis, by name, in order. */
    public static Map<String, Dataset<Row>> run(SparkSession spark, String events) {
        spark.read().parquet(events).createOrReplaceTempView(Analyses.INPUT_TABLE);
        Map<String, Dataset<Row>> out = new LinkedHashMap<>();
        for (String name : Analyses.NAMES) {
            out.put(name, spark.sql(Analyses.sql(name)));
        }
        return out;
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
