package org.flagos.trace.sql;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;
import org.flagos.trace.testing.TraceJson;

/**
 * The events table (docs/tables.md's columns that the analyses read) of a merged trace, written
 * to Parquet by DuckDB, read from the trace's JSON tree: the tests' own route from a merged trace
 * to a table, independent of the CLI's.
 */
public final class MergedEventsParquet {
    private MergedEventsParquet() {
    }

    /** Writes {@code merged}'s complete events to {@code parquet}; returns the rows written. */
    public static long write(Path merged, Path parquet) throws Exception {
        JsonNode trace = TraceJson.MAPPER.readTree(merged.toFile());
        Map<Long, Long> rankOfSlot = new HashMap<>();
        long stride = trace.get("flagtrace_merge").get("pid_stride").asLong();
        for (JsonNode in : trace.get("flagtrace_merge").get("inputs")) {
            rankOfSlot.put(in.get("slot").asLong(), in.path("rank").isNumber() ? in.get("rank").asLong() : -1 - in.get("slot").asLong());
        }
        long rows = 0;
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:")) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE events (rank INTEGER, slot INTEGER, pid BIGINT, tid BIGINT, ph VARCHAR, cat VARCHAR, name VARCHAR,"
                        + " ts_ns BIGINT, dur_ns BIGINT, correlation BIGINT, external_id BIGINT)");
            }
            try (DuckDBAppender a = ((DuckDBConnection) c).createAppender(DuckDBConnection.DEFAULT_SCHEMA, "events")) {
                for (JsonNode e : trace.get("traceEvents")) {
                    if (!"X".equals(e.path("ph").asText()) || !e.path("pid").canConvertToLong()) {
                        continue;
                    }
                    long pid = e.get("pid").asLong();
                    long slot = pid / stride - 1;
                    a.beginRow().append((int) (long) rankOfSlot.get(slot)).append((int) slot).append(pid);
                    if (e.path("tid").isNumber()) {
                        a.append(e.get("tid").asLong());
                    } else {
                        a.appendNull();
                    }
                    a.append("X").append(e.path("cat").asText()).append(e.get("name").asText())
                            .append(nanos(e.get("ts"))).append(nanos(e.get("dur")));
                    JsonNode args = e.path("args");
                    if (args.path("correlation").isNumber()) {
                        a.append(args.get("correlation").asLong());
                    } else {
                        a.appendNull();
                    }
                    if (args.path("External id").isNumber()) {
                        a.append(args.get("External id").asLong());
                    } else {
                        a.appendNull();
                    }
                    a.endRow();
                    rows++;
                }
            }
            try (Statement s = c.createStatement()) {
                s.execute("COPY events TO '" + parquet.toString().replace("'", "''") + "' (FORMAT PARQUET)");
            }
        }
        return rows;
    }

    private static long nanos(JsonNode us) {
        return new BigDecimal(us.asText()).movePointRight(3).longValueExact();
    }
}
