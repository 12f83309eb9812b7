package org.flagos.trace.spark;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.DataFrameWriter;
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
import org.flagos.trace.sql.OpNesting;

/**
 * The SQL analyses ({@link Analyses}, the same .sql files the CLI runs on DuckDB) on Apache Spark,
 * for events tables too large for one machine: the {@code spark-submit} entry point of the spark
 * jar (docs/analysis.md). Nothing here is distributed by hand: Spark plans and runs each query.
 *
 * <pre>
 * spark-submit --class org.flagos.trace.spark.SparkAnalyses flagtrace-VERSION-spark.jar [--table | --traces]
 *     [--format csv|parquet] [--only NAME,...] INPUT... OUT
 * </pre>
 * INPUT: a Parquet events table (a file or a folder of files, local or any file system Spark
 * reads; a folder of {@code rank=N/} partitions, as {@code flagtrace tables --partition-by-rank}
 * writes it, is read with its ranks by Spark's own partition discovery), a catalog table ({@code --table}) or
 * trace files ({@code --traces}, the {@code flagtrace} data source); OUT: a folder that must not exist, given
 * one table per analysis (OUT/NAME/part-*).
 */
public final class SparkAnalyses {
    private SparkAnalyses() {
    }

    /**
     * Every analysis over the Parquet events table at {@code events} (a file or a folder of files, local or any file
     * system Spark reads; {@code rank=N/} partitions are read with their ranks by Spark's partition discovery).
     */
    public static Map<String, Dataset<Row>> run(SparkSession spark, String events) {
        return run(spark, spark.read().parquet(events));
    }

    /**
     * As {@link #run(SparkSession, String)}, over any events table: one read by the {@code flagtrace} data source
     * ({@code spark.read().format("flagtrace").load(traces...)}, {@link FlagtraceDataSource}) straight from the traces.
     */
    public static Map<String, Dataset<Row>> run(SparkSession spark, Dataset<Row> events) {
        return run(spark, events, Analyses.NAMES);
    }

    /**
     * Plans the analyses {@code names} (in {@link Analyses#NAMES}' order) over {@code events}, computing the critical
     * path's tables first where one of them is asked for ({@link CriticalPath}: each step's result checkpointed as a
     * temporary view, so the steps do not grow one plan). The queries read their input as the view
     * {@value Analyses#INPUT_TABLE}: a temporary view of the caller's of that name is put back once every query is
     * planned (each plan holds its input by then), and none is left behind where there was none.
     */
    public static Map<String, Dataset<Row>> run(SparkSession spark, Dataset<Row> events, List<String> names) {
        Dataset<Row> callers = temporaryView(spark, Analyses.INPUT_TABLE);
        events.createOrReplaceTempView(Analyses.INPUT_TABLE);
        try {
            if (AnalysesRequest.needsCriticalPath(names)) {
                CriticalPath.build(engine(spark));
            }
            Map<String, Dataset<Row>> out = new LinkedHashMap<>();
            for (String name : Analyses.NAMES) {
                if (names.contains(name)) {
                    out.put(name, name.equals("rank_ops") ? rankOps(spark) : spark.sql(Analyses.sql(name)));
                }
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            if (callers != null) {
                callers.createOrReplaceTempView(Analyses.INPUT_TABLE);
            } else {
                spark.catalog().dropTempView(Analyses.INPUT_TABLE);
            }
        }
    }

    /**
     * rank_ops over the view {@value Analyses#INPUT_TABLE}: its host events (rank_ops_hosts.sql) spread over the tasks by
     * thread, sorted in {@link OpNesting#ORDER} within each task and nested there ({@link #nestPartition}), as the view
     * {@value OpNesting#TABLE} that rank_ops.sql sums. Its views are dropped once the query is planned (it holds them);
     * a caller's views of those names are put back.
     */
    static Dataset<Row> rankOps(SparkSession spark) {
        Dataset<Row> callersHosts = temporaryView(spark, OpNesting.HOSTS);
        Dataset<Row> callersNested = temporaryView(spark, OpNesting.TABLE);
        try {
            spark.sql(OpNesting.hostsQuery()).createOrReplaceTempView(OpNesting.HOSTS);
            JavaRDD<Row> nested = spark.sql("SELECT rank, pid, tid, ts_ns, end_ns, name, self_device_ns FROM " + OpNesting.HOSTS
                    + " DISTRIBUTE BY rank, pid, tid SORT BY " + OpNesting.ORDER).javaRDD().mapPartitions(SparkAnalyses::nestPartition);
            StructType schema = new StructType().add("rank", DataTypes.IntegerType, true).add("name", DataTypes.StringType, true);
            for (String column : List.of("dur_ns", "self_device_ns", "device_total_ns", "self_cpu_ns")) {
                schema = schema.add(column, DataTypes.LongType, false);
            }
            spark.createDataFrame(nested, schema).createOrReplaceTempView(OpNesting.TABLE);
            return spark.sql(Analyses.sql("rank_ops"));
        } finally {
            restore(spark, OpNesting.HOSTS, callersHosts);
            restore(spark, OpNesting.TABLE, callersNested);
        }
    }

    /** The temporary view {@code name} put back as {@code callers} (a caller's), or dropped where that is null. */
    private static void restore(SparkSession spark, String name, Dataset<Row> callers) {
        if (callers != null) {
            callers.createOrReplaceTempView(name);
        } else {
            spark.catalog().dropTempView(name);
        }
    }

    /** One partition's host events (whole threads, in {@link OpNesting#ORDER}) nested: a row per event. */
    private static Iterator<Row> nestPartition(Iterator<Row> rows) {
        OpNesting nesting = new OpNesting(Mapped.of(rows, r -> new OpNesting.Host(r.isNullAt(0) ? null : ((Number) r.get(0)).intValue(),
                r.isNullAt(1) ? null : ((Number) r.get(1)).longValue(), r.isNullAt(2) ? null : ((Number) r.get(2)).longValue(),
                ((Number) r.get(3)).longValue(), ((Number) r.get(4)).longValue(), r.getString(5), ((Number) r.get(6)).longValue())));
        return Mapped.of(nesting, o -> RowFactory.create(o.rank(), o.name(), o.dur(), o.selfDevice(), o.deviceTotal(), o.selfCpu()));
    }

    /** The session's temporary view {@code name} as planned now, or null where it has none. */
    private static Dataset<Row> temporaryView(SparkSession spark, String name) {
        for (org.apache.spark.sql.catalog.Table t : spark.catalog().listTables().collectAsList()) {
            if (t.isTemporary() && t.name().equals(name)) {
                return spark.table(name);
            }
        }
        return null;
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
        CriticalPathSweep sweep = new CriticalPathSweep(Mapped.of(rows, r -> {
            long[] row = new long[n];
            for (int i = 0; i < n; i++) {
                row[i] = r.getLong(i);
            }
            return row;
        }));
        return Mapped.of(sweep, row -> RowFactory.create(row[0], row[1], row[2]));
    }

    /**
     * The spark-submit entry point: {@link AnalysesRequest}'s arguments ({@link AnalysesRequest#USAGE}); each analysis
     * is written under {@code OUT/NAME/} as Spark writes a table (one file per task: no single task gathers a table).
     * Trace files ({@code --traces}) are read once by the data source into {@code OUT/events/} (Parquet, a
     * {@code rank=N/} folder per rank), which the analyses then read. A wrong call exits 2, a failed one 1, each with
     * one line on standard error.
     */
    public static void main(String[] args) {
        System.exit(run(args, SparkSession.builder().appName("flagtrace analyses"), System.err));
    }

    /**
     * {@link #main} but the exit: the status it exits with (0 done, 1 failed, 2 a wrong call), its one line on
     * {@code err}. The session is got from {@code session} for a call that is not refused, and stopped at the end.
     */
    static int run(String[] args, SparkSession.Builder session, PrintStream err) {
        AnalysesRequest request;
        try {
            request = AnalysesRequest.parse(args);
        } catch (AnalysesRequest.Refused e) {
            err.println("flagtrace: " + e.getMessage());
            return 2;
        }
        SparkSession spark = session.getOrCreate();
        int status = 0;
        try {
            write(spark, request, err);
        } catch (Throwable e) { // an Error too: one line and a status
            err.println("flagtrace: " + oneLine(e));
            status = 1;
        } finally {
            spark.stop();
        }
        return status;
    }

    /**
     * Carries out {@code request} on {@code spark}: reads its input, writes each analysis under its output folder,
     * printing a line per table written; gives the folders written, by analysis name ({@code events} first where the
     * traces were read). A failure removes every table folder this call made (and the output folder, where it made
     * it): no half-written table is left behind.
     */
    public static Map<String, String> write(SparkSession spark, AnalysesRequest request) {
        return write(spark, request, System.err);
    }

    /** As {@link #write(SparkSession, AnalysesRequest)}, its warning (trace files left out) on {@code err}. */
    static Map<String, String> write(SparkSession spark, AnalysesRequest request, PrintStream err) {
        OutputTables out = OutputTables.at(request.output(), spark.sparkContext().hadoopConfiguration());
        RunningTasks tasks = RunningTasks.on(spark.sparkContext()); // before the first job: every task is counted
        try {
            return write(spark, request, out, err);
        } catch (Throwable e) { // Spark's own exceptions are checked ones thrown undeclared: every kind is caught
            tasks.awaitNone();
            out.removeAfter(e);
            throw e;
        } finally {
            tasks.close();
        }
    }

    private static Map<String, String> write(SparkSession spark, AnalysesRequest request, OutputTables out, PrintStream err) {
        Dataset<Row> events = switch (request.kind()) {
            case PARQUET -> spark.read().parquet(request.inputs().get(0));
            case TABLE -> spark.table(request.inputs().get(0));
            case TRACES -> null;
        };
        Map<String, String> written = new LinkedHashMap<>();
        if (events == null) {
            String table = out.claim("events");
            spark.read().format(FlagtraceDataSource.NAME).options(request.sourceOptions())
                    .load(request.inputs().toArray(String[]::new))
                    .write().mode(SaveMode.ErrorIfExists).partitionBy("rank").parquet(table);
            System.out.println("wrote " + table);
            written.put("events", table);
            events = spark.read().parquet(table);
            if ("DROPMALFORMED".equalsIgnoreCase(request.sourceOptions().get("mode"))) {
                warnLeftOut(spark, request, events, err);
            }
        }
        for (Map.Entry<String, Dataset<Row>> e : run(spark, events, request.names()).entrySet()) {
            String folder = out.claim(e.getKey());
            DataFrameWriter<Row> writer = e.getValue().write().mode(SaveMode.ErrorIfExists);
            if (request.format().equals("csv")) {
                // as flagtrace analyze writes CSV: a quote doubled inside quotes, values kept as they are
                writer = writer.option("header", "true").option("escape", "\"").option("ignoreLeadingWhiteSpace", "false")
                        .option("ignoreTrailingWhiteSpace", "false");
            }
            writer.format(request.format()).save(folder);
            System.out.println("wrote " + folder);
            written.put(e.getKey(), folder);
        }
        return written;
    }


    /**
     * With {@code --mode DROPMALFORMED}: the trace files that gave no row, said in one warning line (the data source
     * logs each it skips on its executor, and counts them in its scan's metric, which no caller of a write sees).
     */
    private static void warnLeftOut(SparkSession spark, AnalysesRequest request, Dataset<Row> events, PrintStream err) {
        List<String> listed = TraceScan.files(new TraceScan.Settings(request.inputs(), null, null, true, true),
                spark.sparkContext().hadoopConfiguration());
        java.util.Set<String> read = new java.util.HashSet<>();
        for (Row r : events.select("source_file").distinct().collectAsList()) {
            read.add(r.getString(0));
        }
        List<String> none = listed.stream().filter(f -> !read.contains(f)).toList();
        if (!none.isEmpty()) {
            int shown = Math.min(none.size(), 10);
            err.println("flagtrace: warning: left out " + none.size() + " of " + listed.size() + " trace files (--mode DROPMALFORMED:"
                    + " malformed, each said in a WARN line of its executor, or with no event): " + String.join(", ", none.subList(0, shown))
                    + (none.size() > shown ? " and " + (none.size() - shown) + " more" : ""));
        }
    }

    /**
     * A failure's message on one line, its causes' appended where they add words, then what its suppressed say
     * (the table folders {@link OutputTables} could not remove).
     */
    static String oneLine(Throwable e) {
        StringBuilder b = new StringBuilder(String.valueOf(e.getMessage()));
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            if (c.getMessage() != null && !b.toString().contains(c.getMessage())) {
                b.append(": ").append(c.getMessage());
            }
        }
        for (Throwable s : e.getSuppressed()) {
            if (s instanceof OutputTables.LeftBehind) {
                b.append("; ").append(s.getMessage());
            }
        }
        return b.toString().replaceAll("\\s*\\R\\s*", " ");
    }
}
