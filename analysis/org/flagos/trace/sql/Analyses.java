package org.flagos.trace.sql;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The cross-rank analyses, each one SQL query giving one table, kept as resource files
 * ({@code org/flagos/trace/sql/NAME.sql}) over one input table, {@code events} (docs/tables.md).
 * The SQL is portable: DuckDB ({@link DuckDbAnalyses}, the CLI's engine) and Spark SQL (the
 * optional spark jar, docs/analysis.md) run the same text unchanged. This class uses nothing but
 * the JDK, so the spark jar carries it.
 */
public final class Analyses {
    /** The name of the input table every query reads. */
    public static final String INPUT_TABLE = "events";

    /** The analyses, in the order they are run and printed. */
    public static final List<String> NAMES = List.of("rank_steps", "step_stragglers", "rank_device", "rank_ops");

    private Analyses() {
    }

    /**
     * The SQL text of analysis {@code name}, header comment included, as both engines run it: where the
     * file says {@code flagtrace_is_communication(column)}, the condition of {@link CollectiveKernels}
     * (the one rule of what a communication kernel is).
     */
    public static String sql(String name) {
        if (!NAMES.contains(name)) {
            throw new IllegalArgumentException("no analysis named '" + name + "'; there are " + NAMES);
        }
        try (InputStream in = Analyses.class.getResourceAsStream(name + ".sql")) {
            if (in == null) {
                throw new IllegalStateException(name + ".sql is missing beside " + Analyses.class.getName());
            }
            return CollectiveKernels.expand(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The header comment's first line without its name: what the table holds, in a few words. */
    public static String summary(String name) {
        String first = sql(name).lines().findFirst().orElse("");
        String prefix = "-- " + name + ":";
        return first.startsWith(prefix) ? first.substring(prefix.length()).strip() : "";
    }
}
