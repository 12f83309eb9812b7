import java.nio.file.Files;
import java.nio.file.Path;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;

/**
 * The DuckDB side of "summary against DuckDB" (docs/benchmarks.md, "summary against DuckDB on both cores"):
 * the op table of torch's key_averages rule (rank_ops in one query, nested in windows: since 2026-12-07 the test
 * resource src/test/resources/org/flagos/trace/sql/rank_ops_windows.sql, which DuckDbAnalysesTest holds to rank_ops'
 * rows; rank_ops.sql itself now sums OpNesting's rows, docs/analysis.md) over the events table that
 * {@code flagtrace tables TRACE.json -o EVENTS.parquet} wrote, on an in-memory DuckDB with its default
 * threads (every core). Writes the rows as tab-separated values.
 *
 * <p>Usage (benchmarks/summary-duckdb.sh compiles and runs it):
 * {@code java -cp DIR:target/lib/duckdb_jdbc-*.jar SummaryDuckDb EVENTS.parquet rank_ops.sql ROWS.tsv}
 */
public final class SummaryDuckDb {
    public static void main(String[] args) throws Exception {
        Path parquet = Path.of(args[0]);
        String sql = Files.readString(Path.of(args[1]));
        Path out = Path.of(args[2]);
        long t0 = System.nanoTime();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement()) {
            try (ResultSet r = s.executeQuery("SELECT current_setting('threads')")) {
                r.next();
                System.out.println("duckdb threads " + r.getString(1));
            }
            s.execute("SET preserve_insertion_order = false");
            s.execute("CREATE VIEW events AS SELECT * FROM read_parquet('" + parquet.toString().replace("'", "''") + "')");
            long rows = 0;
            try (ResultSet r = s.executeQuery(sql); PrintWriter w = new PrintWriter(Files.newBufferedWriter(out))) {
                ResultSetMetaData m = r.getMetaData();
                StringBuilder head = new StringBuilder();
                for (int i = 1; i <= m.getColumnCount(); i++) {
                    head.append(i > 1 ? "\t" : "").append(m.getColumnName(i));
                }
                w.println(head);
                while (r.next()) {
                    StringBuilder line = new StringBuilder();
                    for (int i = 1; i <= m.getColumnCount(); i++) {
                        line.append(i > 1 ? "\t" : "").append(r.getString(i));
                    }
                    w.println(line);
                    rows++;
                }
            }
            System.out.printf("rank_ops: %d rows in %.2f s (connection to last row, JVM start not included)%n", rows,
                    (System.nanoTime() - t0) / 1e9);
        }
    }
}
