package org.flagos.trace.spark;

import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.flagos.trace.encoders.EventTable;

/**
 * benchmarks/cluster-job.sh's check, submitted to the cluster: two Parquet events tables ({@code A B}: the data
 * source's and the per-host {@code tables}' folder) hold the same rows, each as often, in the events table's columns.
 * Prints the counts and a last line {@code identical: yes|no}.
 */
public final class CompareTables {
    private CompareTables() {
    }

    public static void main(String[] args) {
        SparkSession spark = SparkSession.builder().appName("flagtrace compare tables").getOrCreate();
        try {
            Column[] columns = EventTable.COLUMNS.stream().map(c -> new Column(c[0])).toArray(Column[]::new);
            Dataset<Row> a = spark.read().parquet(args[0]).select(columns);
            Dataset<Row> b = spark.read().parquet(args[1]).select(columns);
            long rowsA = a.count();
            long rowsB = b.count();
            long ranksA = a.select("rank").distinct().count();
            long ranksB = b.select("rank").distinct().count();
            long onlyA = a.exceptAll(b).count();
            long onlyB = b.exceptAll(a).count();
            System.out.printf("%s: %,d rows, %d ranks%n%s: %,d rows, %d ranks%nonly in the first: %d, only in the second: %d%n",
                    args[0], rowsA, ranksA, args[1], rowsB, ranksB, onlyA, onlyB);
            System.out.println("identical: " + (rowsA == rowsB && rowsA > 0 && onlyA == 0 && onlyB == 0 ? "yes" : "no"));
        } finally {
            spark.stop();
        }
    }
}
