package org.flagos.trace.sql;

import java.util.List;
import java.util.Locale;

/**
 * The one rule telling communication kernels from the rest, used by the summaries and reports
 * ({@code DeviceWorkKind}) and, as SQL text, by every analysis ({@link Analyses#sql} puts
 * {@link #sqlPredicate} where a query says {@value #SQL_MARKER}{@code (column)}).
 *
 * <p>A kernel is communication when it is a kernel of a collective communication library, told by
 * the library's own prefix at the start of its name (any case, after an optional {@code void } that
 * demangled names carry): NCCL's {@code ncclKernel_*}/{@code ncclDevKernel_*} (which RCCL on AMD and
 * Hygon DCU keeps), and the prefixes of the other vendors' libraries in {@link #LIBRARY_PREFIXES}.
 * A collective's word anywhere else in a name means nothing: PyTorch's
 * {@code type_specialized_broadcast_kernel_launcher} or {@code vectorized_elementwise_kernel} with a
 * broadcast functor are elementwise computation. This class uses nothing but the JDK, so the spark
 * jar carries it.
 */
public final class CollectiveKernels {
    /**
     * The libraries' kernel-name prefixes, lower-case: NCCL and RCCL ({@code nccl}; some RCCL builds
     * {@code rccl}), Huawei HCCL ({@code hccl}), MetaX and Moore Threads MCCL ({@code mccl}), Enflame
     * ECCL ({@code eccl}).
     */
    public static final List<String> LIBRARY_PREFIXES = List.of("nccl", "rccl", "hccl", "mccl", "eccl");

    /** What a query writes, followed by a column in parentheses, where the SQL test of this rule goes. */
    public static final String SQL_MARKER = "flagtrace_is_communication";

    private CollectiveKernels() {
    }

    /** Whether a kernel named {@code name} is communication (see the class comment). */
    public static boolean isCommunication(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        if (n.startsWith("void ")) {
            n = n.substring("void ".length());
        }
        for (String p : LIBRARY_PREFIXES) {
            if (n.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The same rule as a portable SQL condition on the text column {@code column} (DuckDB and Spark
     * SQL alike): {@code LOWER(column) LIKE 'nccl%' OR LOWER(column) LIKE 'void nccl%' OR ...}, in
     * parentheses. The prefixes hold no {@code _} or {@code %}, so LIKE reads them literally.
     */
    public static String sqlPredicate(String column) {
        if (!column.matches("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?")) {
            throw new IllegalArgumentException("not a column: " + column);
        }
        StringBuilder s = new StringBuilder("(");
        for (String p : LIBRARY_PREFIXES) {
            if (p.indexOf('_') >= 0 || p.indexOf('%') >= 0) {
                throw new IllegalStateException("a prefix with a LIKE wildcard: " + p);
            }
            if (s.length() > 1) {
                s.append(" OR ");
            }
            s.append("LOWER(").append(column).append(") LIKE '").append(p).append("%' OR LOWER(").append(column)
                    .append(") LIKE 'void ").append(p).append("%'");
        }
        return s.append(')').toString();
    }

    /** {@code sql} with every {@value #SQL_MARKER}{@code (column)} replaced by {@link #sqlPredicate}{@code (column)}. */
    static String expand(String sql) {
        StringBuilder out = new StringBuilder();
        int at = 0;
        while (true) {
            int i = sql.indexOf(SQL_MARKER + "(", at);
            if (i < 0) {
                return out.append(sql, at, sql.length()).toString();
            }
            int close = sql.indexOf(')', i);
            if (close < 0) {
                throw new IllegalStateException("unclosed " + SQL_MARKER + "( in an analysis");
            }
            out.append(sql, at, i).append(sqlPredicate(sql.substring(i + SQL_MARKER.length() + 1, close).strip()));
            at = close + 1;
        }
    }
}
