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

    /**
     * A collective's kind from its kernel's name (docs/analysis.md, "collectives"): the first of these
     * words the name holds, read in lower case without underscores, gives the kind after it; none gives
     * {@code other}. Only for names {@link #isCommunication} accepts.
     */
    public static final List<String[]> KINDS = List.of(new String[] {"allreduce", "all_reduce"},
            new String[] {"allgather", "all_gather"}, new String[] {"reducescatter", "reduce_scatter"},
            new String[] {"alltoall", "all_to_all"}, new String[] {"sendrecv", "send_recv"},
            new String[] {"broadcast", "broadcast"}, new String[] {"reduce", "reduce"}, new String[] {"send", "send"},
            new String[] {"recv", "recv"});

    /** What a query writes, followed by a column, for the kind of {@link #KINDS}. */
    public static final String KIND_MARKER = "flagtrace_collective_kind";

    /** Bytes per element of torch's dtype names, as torch writes them in a collective's args. */
    public static final java.util.Map<String, Integer> ELEMENT_BYTES = elementBytes();

    /** What a query writes, followed by a column, for the element size of {@link #ELEMENT_BYTES} (NULL for another name). */
    public static final String ELEMENT_MARKER = "flagtrace_element_bytes";

    private static java.util.Map<String, Integer> elementBytes() {
        java.util.Map<String, Integer> m = new java.util.LinkedHashMap<>();
        for (String t : List.of("Byte", "Char", "Bool", "Float8_e4m3fn", "Float8_e5m2", "Float8_e4m3fnuz", "Float8_e5m2fnuz")) {
            m.put(t, 1);
        }
        for (String t : List.of("Half", "BFloat16", "Short", "UInt16")) {
            m.put(t, 2);
        }
        for (String t : List.of("Float", "Int", "UInt32", "ComplexHalf")) {
            m.put(t, 4);
        }
        for (String t : List.of("Double", "Long", "UInt64", "ComplexFloat")) {
            m.put(t, 8);
        }
        m.put("ComplexDouble", 16);
        return java.util.Collections.unmodifiableMap(m);
    }

    /** The kind of the collective kernel named {@code name} ({@link #KINDS}). */
    public static String kind(String name) {
        String flat = name.toLowerCase(Locale.ROOT).replace("_", "");
        for (String[] k : KINDS) {
            if (flat.contains(k[0])) {
                return k[1];
            }
        }
        return "other";
    }

    /** {@link #kind} as a portable SQL expression on the text column {@code column}. */
    public static String kindSql(String column) {
        checkColumn(column);
        StringBuilder s = new StringBuilder("(CASE");
        for (String[] k : KINDS) {
            s.append(" WHEN REPLACE(LOWER(").append(column).append("), '_', '') LIKE '%").append(k[0]).append("%' THEN '")
                    .append(k[1]).append('\'');
        }
        return s.append(" ELSE 'other' END)").toString();
    }

    /** {@link #ELEMENT_BYTES} as a portable SQL expression on the text column {@code column}: an INTEGER, or NULL. */
    public static String elementBytesSql(String column) {
        checkColumn(column);
        StringBuilder s = new StringBuilder("(CASE");
        for (java.util.Map.Entry<String, Integer> e : ELEMENT_BYTES.entrySet()) {
            s.append(" WHEN ").append(column).append(" = '").append(e.getKey()).append("' THEN ").append(e.getValue());
        }
        return s.append(" END)").toString();
    }

    private static void checkColumn(String column) {
        if (!column.matches("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?")) {
            throw new IllegalArgumentException("not a column: " + column);
        }
    }

    private CollectiveKernels() {
    }

    /** The categories of a kernel event: today's ({@code kernel}) and torch 1.8-1.9's ({@code Kernel}). */
    public static final List<String> KERNEL_CATEGORIES = List.of("kernel", "Kernel");

    /**
     * Whether an event of category {@code cat} named {@code name} is a collective's kernel: a kernel
     * ({@link #KERNEL_CATEGORIES}) that {@link #isCommunication} calls communication. The report's collectives and the
     * merge's alignment by collectives ask this; the {@code collectives} analysis says the same in its SQL.
     */
    public static boolean isCollectiveKernel(String cat, String name) {
        return cat != null && name != null && KERNEL_CATEGORIES.contains(cat) && isCommunication(name);
    }

    /**
     * {@link #isCollectiveKernel} with {@link #isCommunication}'s verdict kept per name, for a reader that asks it of
     * every kernel event (a trace's kernel names are few, its kernel events many): the same verdicts, without a
     * lower-case copy of the name each time. At most {@code maxNames} names are kept (a trace past that many is asked
     * afresh for the others). Not for several threads at once.
     */
    public static final class Verdicts {
        private final int maxNames;
        private final java.util.HashMap<String, Boolean> communication = new java.util.HashMap<>();
        private String lastName;
        private boolean lastVerdict;

        public Verdicts(int maxNames) {
            this.maxNames = maxNames;
        }

        /** {@link #isCollectiveKernel}{@code (cat, name)}. */
        public boolean isCollectiveKernel(String cat, String name) {
            if (cat == null || name == null || !KERNEL_CATEGORIES.contains(cat)) {
                return false;
            }
            if (name == lastName) { // the same string as the kernel before's
                return lastVerdict;
            }
            Boolean v = communication.get(name);
            if (v == null) {
                v = isCommunication(name);
                if (communication.size() < maxNames) {
                    communication.put(name, v);
                }
            }
            lastName = name;
            lastVerdict = v;
            return v;
        }

        /** Names whose verdict is kept. */
        int size() {
            return communication.size();
        }
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
        checkColumn(column);
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

    /**
     * {@code sql} with every {@value #SQL_MARKER}{@code (column)} replaced by {@link #sqlPredicate}{@code (column)},
     * every {@value #KIND_MARKER}{@code (column)} by {@link #kindSql} and every {@value #ELEMENT_MARKER}{@code (column)}
     * by {@link #elementBytesSql}.
     */
    static String expand(String sql) {
        return expand(expand(expand(sql, SQL_MARKER, CollectiveKernels::sqlPredicate), KIND_MARKER, CollectiveKernels::kindSql),
                ELEMENT_MARKER, CollectiveKernels::elementBytesSql);
    }

    /**
     * {@code sql} with every {@code marker(argument)} replaced by {@code rule}'s text for the argument: the
     * package's one expander of a marker (the collective rules here, the launch calls and the shared fragments
     * of {@link Analyses}).
     */
    static String expand(String sql, String marker, java.util.function.UnaryOperator<String> rule) {
        StringBuilder out = new StringBuilder();
        int at = 0;
        while (true) {
            int i = sql.indexOf(marker + "(", at);
            if (i < 0) {
                return out.append(sql, at, sql.length()).toString();
            }
            int close = sql.indexOf(')', i);
            if (close < 0) {
                throw new IllegalStateException("unclosed " + marker + "( in an analysis");
            }
            out.append(sql, at, i).append(rule.apply(sql.substring(i + marker.length() + 1, close).strip()));
            at = close + 1;
        }
    }
}
