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
    public static final List<String> NAMES = List.of("rank_steps", "step_stragglers", "rank_device", "rank_ops",
            "kernel_stats", "kernel_launches", "queue_length", "stream_idle", "collectives", "memory_bandwidth",
            "kernel_sequences", "critical_path", "critical_path_segments");

    /**
     * The runtime and driver calls that put one piece of device work on a stream, paired with it by
     * the correlation id (docs/analysis.md, "Launches"): HTA's set (CUDA's kernel launches, async copies
     * and sets, HIP's) and the same calls of the other vendors flagtrace traces (MACA's {@code mc},
     * MUSA's {@code musa}, GCU's {@code tops}). Where a query says {@value #LAUNCH_MARKER}{@code (column)}
     * the loader puts {@code column IN (...)} of these names.
     */
    public static final List<String> LAUNCH_CALLS = List.of("cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel",
            "cuLaunchKernelEx", "cudaMemcpyAsync", "cudaMemsetAsync", "hipLaunchKernel", "hipExtModuleLaunchKernel",
            "hipMemcpyAsync", "hipMemsetAsync", "hipMemcpyWithStream", "mcLaunchKernel", "mcMemcpyAsync", "mcMemsetAsync",
            "musaLaunchKernel", "musaMemcpyAsync", "musaMemsetAsync", "topsLaunchKernel", "topsMemcpyAsync", "topsMemsetAsync");

    /** What a query writes, followed by a column in parentheses, for "this row is one of {@link #LAUNCH_CALLS}". */
    public static final String LAUNCH_MARKER = "flagtrace_is_launch";

    private Analyses() {
    }

    /**
     * The SQL text of analysis {@code name}, header comment included, as both engines run it: where the
     * file says {@code flagtrace_is_communication(column)}, the condition of {@link CollectiveKernels}
     * (the one rule of what a communication kernel is), and where it says {@code flagtrace_is_launch(column)},
     * that the column is one of {@link #LAUNCH_CALLS}.
     */
    public static String sql(String name) {
        if (!NAMES.contains(name)) {
            throw new IllegalArgumentException("no analysis named '" + name + "'; there are " + NAMES);
        }
        return load(name);
    }

    /**
     * The SQL text of resource {@code name.sql} beside this class (an analysis, or a step of one such as
     * {@link CriticalPath}'s), expanded as {@link #sql} says.
     */
    static String load(String name) {
        try (InputStream in = Analyses.class.getResourceAsStream(name + ".sql")) {
            if (in == null) {
                throw new IllegalStateException(name + ".sql is missing beside " + Analyses.class.getName());
            }
            return expand(CollectiveKernels.expand(fragments(new String(in.readAllBytes(), StandardCharsets.UTF_8))));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What a query writes, followed by a resource name in parentheses, for that resource's query in its place. */
    public static final String FRAGMENT_MARKER = "flagtrace_fragment";

    /**
     * {@code sql} with every {@value #FRAGMENT_MARKER}{@code (name)} replaced by the query of resource
     * {@code name.sql} without its comment lines: a part that several queries share (step_ops.sql), written once.
     */
    static String fragments(String sql) {
        return CollectiveKernels.expand(sql, FRAGMENT_MARKER, name -> {
            if (!name.matches("[a-z_]+")) {
                throw new IllegalStateException("not a fragment's name: " + name);
            }
            StringBuilder body = new StringBuilder();
            for (String line : load(name).split("\n")) {
                if (!line.startsWith("--")) {
                    body.append(body.length() == 0 ? "" : "\n").append(line);
                }
            }
            return body.toString().strip();
        });
    }

    /** {@code sql} with every {@value #LAUNCH_MARKER}{@code (column)} replaced by {@code (column IN ('cudaLaunchKernel', ...))}. */
    static String expand(String sql) {
        StringBuilder in = new StringBuilder();
        for (String n : LAUNCH_CALLS) {
            in.append(in.length() == 0 ? "" : ", ").append('\'').append(n).append('\'');
        }
        return CollectiveKernels.expand(sql, LAUNCH_MARKER, column -> {
            if (!column.matches("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?")) {
                throw new IllegalStateException("not a column: " + column);
            }
            return "(" + column + " IN (" + in + "))";
        });
    }

    /**
     * Portable SQL (DuckDB and Spark alike) selecting the rows of table {@code source} inside each
     * rank's training steps {@code first} to {@code last}: a rank's window runs from the earliest start
     * to the latest end of its host ops named {@code ProfilerStep#N} with N in that range (as
     * rank_steps counts steps), and a row is in it when it starts at or after the window's start and
     * before its end (a kernel launched in the last step that starts after it ends is out; one that
     * starts inside is kept whole). A rank with none of those steps has no row.
     */
    public static String stepWindow(String source, long first, long last) {
        if (!source.matches("[A-Za-z_][A-Za-z0-9_]*") || first < 0 || last < first) {
            throw new IllegalArgumentException("steps " + first + "-" + last + " of " + source);
        }
        return "SELECT e.* FROM " + source + " e\n"
                + "JOIN (\n"
                + "  SELECT rank, MIN(ts_ns) AS window_start_ns, MAX(ts_ns + dur_ns) AS window_end_ns\n"
                + "  FROM " + source + "\n"
                + "  WHERE ph = 'X' AND dur_ns >= 0\n"
                + "    AND cat IN ('cpu_op', 'user_annotation', 'python_function', 'Operator')\n"
                + "    AND name LIKE 'ProfilerStep#%'\n"
                + "    AND TRY_CAST(SUBSTRING(name, 14) AS BIGINT) BETWEEN " + first + " AND " + last + "\n"
                + "  GROUP BY rank\n"
                + ") w ON w.rank = e.rank AND e.ts_ns >= w.window_start_ns AND e.ts_ns < w.window_end_ns";
    }

    /** The header comment's first line without its name: what the table holds, in a few words. */
    public static String summary(String name) {
        String first = sql(name).lines().findFirst().orElse("");
        String prefix = "-- " + name + ":";
        return first.startsWith(prefix) ? first.substring(prefix.length()).strip() : "";
    }
}
