package org.flagos.trace.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.flagos.trace.sql.Analyses;
import org.flagos.trace.sql.CriticalPath;
import org.flagos.trace.sql.CriticalPathSweep;

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
     * Registers {@code events} as the input table, computes the critical path's tables
     * ({@link CriticalPath}: each step's result checkpointed as a temporary view, so the steps do
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

            @Override
            public void sweep(String name, String select) {
                SparkAnalyses.sweep(spark, name, select);
            }
        };
    }

    /**
     * {@link CriticalPath.Engine#sweep} on Spark: {@code select}'s rows in one partition, sorted, through the sweep in
     * one task; the result checkpointed as the temporary view {@code name}. The sweep is one pass in time order over
     * every key node, so it is one task whatever the cluster; it keeps only a running maximum a chain and the sources
     * whose edges it has not read yet.
     */
    static void sweep(SparkSession spark, String name, String select) {
        Column[] order = CriticalPathSweep.ORDER.stream().map(functions::col).toArray(Column[]::new);
        Column[] columns = CriticalPathSweep.COLUMNS.stream().map(functions::col).toArray(Column[]::new);
        JavaRDD<Row> swept = spark.sql(select).select(columns).repartition(1).sortWithinPartitions(order).javaRDD()
                .mapPartitions(SparkAnalyses::sweepPartition);
        StructType schema = new StructType();
        for (String column : CriticalPathSweep.OUTPUT) {
            schema = schema.add(column, DataTypes.LongType, false);
        }
        spark.createDataFrame(swept, schema).localCheckpoint().createOrReplaceTempView(name);
    }

    /** One partition's rows (CriticalPathSweep's columns, in its order) swept. */
    private static Iterator<Row> sweepPartition(Iterator<Row> rows) {
        int n = CriticalPathSweep.COLUMNS.size();
        Iterator<long[]> in = new Iterator<>() {
            @Override
            public boolean hasNext() {
                return rows.hasNext();
            }

            @Override
            public long[] next() {
                Row r = rows.next();
                long[] row = new long[n];
                for (int i = 0; i < n; i++) {
                    row[i] = r.getLong(i);
                }
                return row;
            }
        };
        CriticalPathSweep sweep = new CriticalPathSweep(in);
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return sweep.hasNext();
            }

            @Override
            public Row next() {
                long[] row = sweep.next();
                return RowFactory.create(row[0], row[1], row[2]);
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
