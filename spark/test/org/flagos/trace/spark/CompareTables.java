package org.flagos.trace.spark;

import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import java.util.Map;
import org.flagos.trace.encoders.EventTable;

/**
 * benchmarks/cluster-job.sh's check, submitted to the cluster: two Parquet events tables ({@code A B}: the data
 * source's and the per-host {@code tables}' folder) hold the same rows, each as often, in the events table's columns,
 * by a digest per rank. Prints the ranks that differ and a last line {@code identical: yes|no}.
 */
public final class CompareTables {
    private CompareTables() {
    }

    public static void main(String[] args) {
        SparkSession spark = SparkSession.builder().appName("flagtrace compare tables").getOrCreate();
        try {
            Column[] columns = EventTable.COLUMNS.stream().map(c -> new Column(c[0])).toArray(Column[]::new);
            // A multiset digest per rank, one scan of each table and no shuffle of the rows: the count and the sum of
            // each row's 64-bit hash (as a decimal, so the sum does not wrap). Equal digests for every rank say the
            // tables hold the same rows, each as often, but for a hash collision.
            Map<Integer, String> a = digests(spark.read().parquet(args[0]).select(columns));
            Map<Integer, String> b = digests(spark.read().parquet(args[1]).select(columns));
            long rows = 0;
            for (String d : a.values()) {
                rows += Long.parseLong(d.substring(0, d.indexOf(' ')));
            }
            int differ = 0;
            for (Integer rank : new java.util.TreeSet<>(union(a.keySet(), b.keySet()))) {
                if (!java.util.Objects.equals(a.get(rank), b.get(rank))) {
                    if (differ++ < 10) {
                        System.out.println("rank " + rank + ": " + a.get(rank) + " against " + b.get(rank));
                    }
                }
            }
            System.out.printf("%s: %d ranks, %,d rows; %s: %d ranks; ranks whose rows differ: %d%n", args[0], a.size(), rows,
                    args[1], b.size(), differ);
            System.out.println("identical: " + (differ == 0 && !a.isEmpty() ? "yes" : "no"));
        } finally {
            spark.stop();
        }
    }

    /** Per rank: "COUNT HASHSUM". */
    private static Map<Integer, String> digests(Dataset<Row> table) {
        Column hash = functions.xxhash64(table.columns().length == 0 ? new Column[0]
                : java.util.Arrays.stream(table.columns()).map(Column::new).toArray(Column[]::new)).cast("decimal(38,0)");
        Map<Integer, String> out = new java.util.HashMap<>();
        for (Row r : table.groupBy("rank").agg(functions.count(functions.lit(1)), functions.sum(hash)).collectAsList()) {
            out.put(r.getInt(0), r.getLong(1) + " " + r.getDecimal(2));
        }
        return out;
    }

    private static java.util.Set<Integer> union(java.util.Set<Integer> a, java.util.Set<Integer> b) {
        java.util.Set<Integer> u = new java.util.HashSet<>(a);
        u.addAll(b);
        return u;
    }
}
