package org.flagos.trace.spark;

import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;

/**
 * The Spark tests' session settings, in one place: no UI and no progress bar, 2 shuffle partitions,
 * the driver bound to the loopback, every folder Spark writes (local, warehouse, Hadoop temporary)
 * inside the test's folder under target/, UTC session time. {@link #start} runs Spark in this JVM
 * ({@code local[2]}); {@link #builder} is the same settings for any master (StandaloneClusterTest
 * points it at a standalone cluster).
 */
final class LocalSpark {
    private LocalSpark() {
    }

    /** A session builder with the tests' settings and no master; Spark writes only under {@code dir/spark}. */
    static SparkSession.Builder builder(String appName, Path dir) {
        Path sparkDir = dir.resolve("spark");
        return SparkSession.builder()
                .appName(appName)
                .config("spark.ui.enabled", "false")
                .config("spark.ui.showConsoleProgress", "false")
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.default.parallelism", "2")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.local.dir", sparkDir.resolve("local").toString())
                .config("spark.sql.warehouse.dir", sparkDir.resolve("warehouse").toString())
                .config("spark.hadoop.hadoop.tmp.dir", sparkDir.resolve("hadoop").toString())
                .config("spark.sql.session.timeZone", "UTC");
    }

    /** Spark in this JVM, {@code local[2]}, with {@link #builder}'s settings, logging warnings only. */
    static SparkSession start(String appName, Path dir) {
        SparkSession spark = builder(appName, dir).master("local[2]").getOrCreate();
        spark.sparkContext().setLogLevel("WARN");
        return spark;
    }
}
