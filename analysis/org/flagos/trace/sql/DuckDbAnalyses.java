package org.flagos.trace.sql;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Properties;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;
import org.duckdb.DuckDBDriver;
import org.flagos.trace.capture.ScratchFolders;
import org.flagos.trace.encoders.EventTable;
import org.flagos.trace.ingest.InputFiles;

/**
 * Runs {@link Analyses} on DuckDB, embedded through its JDBC driver (nothing to install; its database is a
 * file in a private temporary folder, deleted on {@link #close}), over a Parquet events table: one
 * {@code .parquet} file, or a folder of them (read as one table).
 */
public final class DuckDbAnalyses implements AutoCloseable {
    private final Connection db;
    private final Path links; // the folder of literal names given to DuckDB, or null
    private final Path spill; // DuckDB's temporary folder, deleted on close

    private DuckDbAnalyses(Connection db, Path links, Path spill) {
        this.db = db;
        this.links = links;
        this.spill = spill;
    }

    /**
     * The most memory DuckDB holds (its {@code memory_limit}; DuckDB's own default is 80% of the machine's):
     * what does not fit, the critical path's tables and the sorts and joins of large tables, goes to a private
     * temporary folder and is read back (docs/analysis.md, "Memory"). The JVM's heap is apart from it.
     */
    static final String MEMORY_LIMIT = "1GB";

    /**
     * The system property that bounds the whole process instead (bytes, or with k, m or g): DuckDB's
     * {@code memory_limit} is then that less the JVM's largest heap ({@code -Xmx}) and {@link #JVM_OWN} for
     * what the JVM and DuckDB hold outside both (code, metaspace, threads' stacks, the driver's own
     * buffers), at least {@link #LEAST_LIMIT}. The launcher sets it for {@code analyze} (1g, with -Xmx256m).
     */
    static final String BUDGET_PROPERTY = "flagtrace.analyze.memory";

    /** What the process holds beside the JVM's heap and DuckDB's {@code memory_limit} (measured with /usr/bin/time -v). */
    static final long JVM_OWN = 160L << 20;

    /** The least {@code memory_limit} a budget gives DuckDB. */
    static final long LEAST_LIMIT = 128L << 20;

    /** DuckDB's {@code memory_limit}: {@link #MEMORY_LIMIT}, or what {@link #BUDGET_PROPERTY} leaves it. */
    static String memoryLimit() {
        return budgeted() ? (memoryLimitBytes() >> 20) + "MiB" : MEMORY_LIMIT;
    }

    /** {@link #memoryLimit()} in bytes (DuckDB reads "GB" as 10^9). */
    static long memoryLimitBytes() {
        if (!budgeted()) {
            return 1_000_000_000L;
        }
        long bytes = bytes(System.getProperty(BUDGET_PROPERTY).strip());
        return Math.max(LEAST_LIMIT, bytes - Runtime.getRuntime().maxMemory() - JVM_OWN);
    }

    private static boolean budgeted() {
        String budget = System.getProperty(BUDGET_PROPERTY);
        return budget != null && !budget.isBlank();
    }

    /**
     * The {@code memory_limit} each of DuckDB's threads needs at least. Every thread of a sort, a join or an
     * aggregation holds its own buffers: at 64 ranks x 1M events, 616 MiB ran {@code rank_device} and the analyses
     * after it on 2 threads (the 2-core VM, the process under 1 GiB), and on 14 (the 16-core device machine, DuckDB's
     * default of every core) ran out of memory in {@code rank_device} after 103 s, the process at 1.11 GB.
     */
    static final long PER_THREAD = 256L << 20;

    /**
     * DuckDB's {@code threads}: the cores this process may use ({@link Runtime#availableProcessors}, which follows
     * {@code taskset} and a container's limit; DuckDB's own default counts every core of the machine), but no more
     * than {@code memory_limit} gives {@link #PER_THREAD} each, and at least one.
     */
    static int threads() {
        return (int) Math.max(1, Math.min(Runtime.getRuntime().availableProcessors(), memoryLimitBytes() / PER_THREAD));
    }

    /** {@code 1g}, {@code 512m}, {@code 65536k} or plain bytes, as the JVM's -Xmx reads them. */
    static long bytes(String size) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("([0-9]{1,15})([kKmMgG]?)").matcher(size);
        if (!m.matches()) {
            throw new IllegalArgumentException(BUDGET_PROPERTY + " is not a size (such as 1g or 768m): " + size);
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2).toLowerCase(java.util.Locale.ROOT)) {
            case "k" -> n << 10;
            case "m" -> n << 20;
            case "g" -> n << 30;
            default -> n;
        };
    }

    /** The database file {@link #open} makes in its private temporary folder, deleted on {@link #close}. */
    static final String DATABASE = "analyze.duckdb";

    /** Characters DuckDB reads as a pattern in a path (glob), never as themselves. */
    private static final String GLOB = "*?[]{}\\";

    /**
     * Opens DuckDB with {@code events} as a view of the Parquet file or folder {@code events}. DuckDB
     * is given literal paths only: a folder's {@code .parquet} files are listed here, and a file whose
     * path holds a glob character ({@code ev[1].parquet}) is given through a link of a plain name in a
     * private folder. The table's columns are checked against docs/tables.md before any analysis runs.
     */
    public static DuckDbAnalyses open(Path events) throws IOException {
        return open(events, null);
    }

    /** The view of the whole input; {@code events} is this view, or its step window. */
    private static final String ALL = "flagtrace_all_events";

    /**
     * As {@link #open(Path)}; with {@code steps} ({first, last}, or null for every event) the analyses
     * see only each rank's steps first to last ({@link Analyses#stepWindow}): {@code events} is a view
     * of the window over the whole input, and {@link #kept()} says how much of it is in.
     */
    public static DuckDbAnalyses open(Path events, long[] steps) throws IOException {
        List<Path> files = new ArrayList<>();
        List<Integer> folderRanks = new ArrayList<>(); // each file's rank=N folder's N, or null
        if (Files.isDirectory(events)) {
            Path root = events.toAbsolutePath();
            try (var walk = Files.walk(root)) {
                for (Path entry : (Iterable<Path>) walk::iterator) {
                    if (!entry.getFileName().toString().endsWith(".parquet") || hidden(root.relativize(entry))
                            || Files.isDirectory(entry)) {
                        continue;
                    }
                    if (!Files.isRegularFile(entry)) { // refused, not skipped: its ranks would be missing in silence
                        throw new IOException(entry + " " + InputFiles.notRegular(entry)
                                + ": an events table's files are Parquet files");
                    }
                    files.add(entry);
                }
            } catch (java.io.UncheckedIOException e) {
                throw new IOException(events + ": cannot list the folder: " + e.getCause().getMessage(), e.getCause());
            }
            if (files.isEmpty()) {
                throw new IOException(events + ": a folder with no .parquet file in it");
            }
            files.sort(null);
            for (Path f : files) {
                folderRanks.add(folderRank(events, root.relativize(f)));
            }
        } else if (Files.isRegularFile(events)) {
            files.add(events.toAbsolutePath());
        } else {
            throw new IOException(events + ": no such file or folder");
        }
        Path links = null;
        List<String> literal = new ArrayList<>();
        for (Path f : files) {
            if (!hasGlob(f.toString())) {
                literal.add(f.toString());
                continue;
            }
            if (links == null) {
                links = ScratchFolders.create("analyze-links");
                if (hasGlob(links.toString())) {
                    ScratchFolders.remove(links);
                    throw new IOException(events + ": its path holds a character DuckDB reads as a pattern (" + GLOB
                            + "), and so does the temporary folder " + links + "; rename it or set java.io.tmpdir");
                }
            }
            literal.add(Files.createSymbolicLink(links.resolve(literal.size() + ".parquet"), f).toString());
        }
        Properties props = new Properties();
        // Parquet is built into the driver; nothing is fetched (the CLI never touches the network).
        props.setProperty("autoinstall_known_extensions", "false");
        props.setProperty("autoload_known_extensions", "false");
        Connection c = null;
        Path spill = null;
        try {
            spill = ScratchFolders.create("analyze-spill");
            // A database file, not an in-memory database: the critical path's tables are stored compressed, and their
            // blocks are dropped from memory and read back from the file under memory_limit, where an in-memory
            // database's tables stay uncompressed and are written out to the temporary folder to make room
            // (docs/analysis.md, "Memory").
            c = DriverManager.getConnection("jdbc:duckdb:" + spill.resolve(DATABASE), props);
            try (Statement s = c.createStatement()) {
                s.execute("SET memory_limit = '" + memoryLimit() + "'");
                s.execute("SET threads = " + threads());
                s.execute("SET temp_directory = " + literal(spill.toString()));
                // every analysis ends in ORDER BY; nothing else needs the input's order kept, which costs memory
                s.execute("SET preserve_insertion_order = false");
            }
            // A query's rows come as DuckDB makes them: the driver's default materialises a result whole first, in
            // memory outside memory_limit (critical_path_segments at 64 ranks x 100k events: about 390 MB more).
            streamResults(c, true);
            // Literal paths, in plain SQL, put together by column name. A file in a rank=N folder has rank N: its
            // rank column is checked against N, or is N where it has none (below: links with hive partitioning). The
            // others are one read_parquet of the list of their paths: one scan whatever the number of files, where a
            // UNION of one scan a file made each statement's memory grow with the files (the critical path's
            // cp_nodes ran out of the launcher's 616 MiB over 64 rank=N files, and passed over the same rows in one).
            List<String> reads = new ArrayList<>();
            List<String> together = new ArrayList<>();
            List<RankedFile> unranked = new ArrayList<>(); // files of a rank=N folder without a rank column
            for (int i = 0; i < literal.size(); i++) {
                // hive_partitioning off: DuckDB would read rank=N in a path as a column of its own choosing (BIGINT)
                String read = "read_parquet(" + literal(literal.get(i)) + ", hive_partitioning = false)";
                Integer n = folderRanks.isEmpty() ? null : folderRanks.get(i);
                if (n == null) {
                    together.add(literal(literal.get(i)));
                } else if (!hasColumn(c, read, "rank")) {
                    unranked.add(new RankedFile(literal.get(i), n));
                } else {
                    checkRank(c, read, n, files.get(i));
                    together.add(literal(literal.get(i)));
                }
            }
            // Files without a rank column (as Spark and DuckDB write a table partitioned by rank) are read through
            // links named LINKS/rank=N/I.parquet with hive partitioning: one scan, the rank taken from the link's
            // folder, and a filter on rank reads only its files. Links, because DuckDB would also take any other
            // KEY=VALUE folder of the real path as a column, over the file's own of that name.
            if (unranked.size() > 1 && links == null) {
                links = ScratchFolders.create("analyze-links");
            }
            if (unranked.size() > 1 && !hasGlob(links.toString()) && links.toString().indexOf('=') < 0) {
                List<String> linked = new ArrayList<>();
                for (int i = 0; i < unranked.size(); i++) {
                    RankedFile f = unranked.get(i);
                    Path folder = Files.createDirectories(links.resolve(RANK_FOLDER + f.rank()));
                    linked.add(literal(Files.createSymbolicLink(folder.resolve(i + ".parquet"), Path.of(f.path())).toString()));
                }
                reads.add("SELECT * FROM read_parquet([" + String.join(", ", linked) + "], hive_partitioning = true,"
                        + " hive_types = {'rank': INTEGER}, union_by_name = true)");
            } else { // one file, or a temporary folder whose path DuckDB would read as columns: a scan a file
                for (RankedFile f : unranked) {
                    reads.add("SELECT CAST(" + f.rank() + " AS INTEGER) AS rank, * FROM read_parquet("
                            + literal(f.path()) + ", hive_partitioning = false)");
                }
            }
            if (together.size() == 1) { // a file as itself: a list is SQL that Jazzer's SQL sanitizer cannot parse (docs/fuzzing.md)
                reads.add(0, "SELECT * FROM read_parquet(" + together.get(0) + ", hive_partitioning = false)");
            } else if (!together.isEmpty()) {
                reads.add(0, "SELECT * FROM read_parquet([" + String.join(", ", together) + "], hive_partitioning = false,"
                        + " union_by_name = true)");
            }
            try (Statement s = c.createStatement()) {
                s.execute("CREATE VIEW " + READ + " AS " + String.join(" UNION ALL BY NAME ", reads));
                s.execute("CREATE VIEW " + ALL + " AS SELECT *" + addedColumns(c) + " FROM " + READ);
                s.execute("CREATE VIEW " + Analyses.INPUT_TABLE + " AS "
                        + (steps == null ? "SELECT * FROM " + ALL : Analyses.stepWindow(ALL, steps[0], steps[1])));
            }
            checkColumns(c, events);
            return new DuckDbAnalyses(c, links, spill);
        } catch (SQLException | IOException | RuntimeException e) {
            abandon(c, links, spill);
            if (e instanceof IOException io) {
                throw io;
            }
            throw new IOException(events + " is not a Parquet events table: " + words(e), e);
        } catch (Error e) { // a stack overflow or out of memory: nothing left behind either, the error goes on
            abandon(c, links, spill);
            throw e;
        }
    }

    /** A file of a {@code rank=N} folder (its path as DuckDB reads it) and that N. */
    private record RankedFile(String path, int rank) {
    }

    /** What an open that failed made: the connection closed, the links and the spill folder deleted. */
    private static void abandon(Connection c, Path links, Path spill) {
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // the open's own failure is what matters
            }
        }
        ScratchFolders.remove(links);
        ScratchFolders.remove(spill);
    }

    /**
     * Whether a path under the folder read is hidden, as Spark and Hadoop hide it: a file or folder whose name
     * starts with {@code .} or {@code _} (a writer's temporary file, {@code _SUCCESS}, {@code _temporary/}).
     */
    private static boolean hidden(Path relative) {
        for (Path part : relative) {
            String name = part.toString();
            if (name.startsWith(".") || name.startsWith("_")) {
                return true;
            }
        }
        return false;
    }

    /** The folder name of a rank partition, as {@code flagtrace tables --partition-by-rank} and Spark write it. */
    private static final String RANK_FOLDER = "rank=";

    /**
     * The rank a file's folders give it ({@code rank=N}, hive partitioning), or null where no folder under the
     * one read is a rank's; a folder {@code rank=} of no whole number of the column's type (INTEGER), or two
     * rank folders of different ranks above one file, are refused.
     */
    static Integer folderRank(Path events, Path relative) throws IOException {
        Integer rank = null;
        Path parent = relative.getParent();
        for (int i = 0; parent != null && i < parent.getNameCount(); i++) {
            String name = parent.getName(i).toString();
            if (!name.startsWith(RANK_FOLDER)) {
                continue;
            }
            String value = name.substring(RANK_FOLDER.length());
            Integer n = null;
            if (value.matches("-?[0-9]{1,10}")) {
                long v = Long.parseLong(value);
                n = v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE ? (int) v : null;
            }
            if (n == null) {
                throw new IOException(events.resolve(relative) + ": its folder " + name + " is no rank (rank=N, N a whole"
                        + " number that fits the rank column's INTEGER)");
            }
            if (rank != null && !rank.equals(n)) {
                throw new IOException(events.resolve(relative) + ": it is under two rank folders, rank=" + rank + " and " + name);
            }
            rank = n;
        }
        return rank;
    }

    private static boolean hasColumn(Connection c, String read, String column) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("DESCRIBE SELECT * FROM " + read)) {
            while (rs.next()) {
                if (rs.getString(1).equals(column)) {
                    return true;
                }
            }
            return false;
        }
    }

    /** Refuses a file in folder {@code rank=N} whose rank column holds another rank (or none) on some row. */
    private static void checkRank(Connection c, String read, int rank, Path file) throws SQLException, IOException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*), min(rank), max(rank) FROM " + read
                + " WHERE rank IS DISTINCT FROM " + rank)) {
            rs.next();
            long other = rs.getLong(1);
            if (other > 0) {
                Object min = rs.getObject(2);
                throw new IOException(file + ": " + other + " of its rows have rank " + (min == null ? "NULL" : min
                        + (min.equals(rs.getObject(3)) ? "" : " to " + rs.getObject(3))) + ", not the rank of its folder rank="
                        + rank);
            }
        }
    }

    /** The files as read, before {@link #addedColumns}. */
    private static final String READ = "flagtrace_read_events";

    /**
     * For a table written before {@link EventTable#ADDED_COLUMNS} were published: those it lacks, as
     * {@code , CAST(NULL AS type) AS name} each, so the analyses read them as NULL; empty for a table that has them.
     */
    private static String addedColumns(Connection c) throws SQLException {
        java.util.Set<String> present = new java.util.HashSet<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("DESCRIBE " + READ)) {
            while (rs.next()) {
                present.add(rs.getString(1));
            }
        }
        StringBuilder out = new StringBuilder();
        for (String[] column : EventTable.COLUMNS) {
            if (EventTable.ADDED_COLUMNS.contains(column[0]) && !present.contains(column[0])) {
                out.append(", CAST(NULL AS ").append(column[1]).append(") AS ").append(column[0]);
            }
        }
        return out.toString();
    }

    private static boolean hasGlob(String path) {
        for (int i = 0; i < path.length(); i++) {
            if (GLOB.indexOf(path.charAt(i)) >= 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * Refuses, in words, a table whose columns are not those of docs/tables.md: a published column of
     * another type (a whole number where a whole number is expected may be narrower), or a column an
     * analysis needs that is missing. Extra columns are allowed.
     */
    private static void checkColumns(Connection c, Path events) throws SQLException, IOException {
        java.util.Map<String, String> types = new java.util.LinkedHashMap<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("DESCRIBE " + Analyses.INPUT_TABLE)) {
            while (rs.next()) {
                types.put(rs.getString(1), rs.getString(2));
            }
        }
        StringBuilder sql = new StringBuilder();
        for (String name : Analyses.NAMES) {
            sql.append(Analyses.sql(name)).append('\n');
        }
        for (String step : CriticalPath.STEPS) {
            sql.append(Analyses.load(step)).append('\n');
        }
        sql.append(Analyses.load(OpNesting.HOSTS)).append('\n');
        for (String[] column : EventTable.COLUMNS) {
            String found = types.get(column[0]);
            if (found == null) {
                if (java.util.regex.Pattern.compile("\\b" + column[0] + "\\b").matcher(sql).find()) {
                    throw new IOException(events + " is not a flagtrace events table: it has no column " + column[0] + " ("
                            + column[1] + ", docs/tables.md); write the table with flagtrace tables");
                }
                continue;
            }
            if (!fits(found, column[1])) {
                throw new IOException(events + " is not a flagtrace events table: column " + column[0] + " is " + found
                        + " where docs/tables.md has " + column[1] + "; write the table with flagtrace tables");
            }
        }
    }

    /** Whether a column of DuckDB type {@code found} reads exactly as {@code expected} (INTEGER, BIGINT or VARCHAR). */
    private static boolean fits(String found, String expected) {
        switch (expected) {
            case "VARCHAR":
                return found.equals("VARCHAR");
            case "INTEGER":
                return List.of("TINYINT", "SMALLINT", "INTEGER", "UTINYINT", "USMALLINT").contains(found);
            case "BIGINT":
                return List.of("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER").contains(found);
            default:
                return found.equals(expected);
        }
    }

    /**
     * What went wrong in DuckDB, in this CLI's words: never DuckDB's own (its class and type names,
     * {@code TProtocolException}, {@code Conversion Error ... INT32}), which say nothing to a user.
     */
    static String words(Throwable e) {
        String m = String.valueOf(e.getMessage());
        if (m.contains("Conversion Error") || m.contains("Could not convert") || m.contains("Out of Range")) {
            return "a value in it does not fit its column's type";
        }
        if (m.contains("Binder Error") || m.contains("Catalog Error")) {
            return "it lacks a column the analyses need, or a column has another type (docs/tables.md)";
        }
        if (m.contains("Parser Error") || m.contains("INTERNAL Error")) {
            return "flagtrace's own SQL failed on it, a bug in flagtrace rather than in the input (please report it)";
        }
        if (m.contains("Out of Memory")) {
            return "DuckDB ran out of memory reading it (its budget: FLAGTRACE_ANALYZE_MEMORY)";
        }
        if (m.contains("Invalid result set")) {
            // the driver's words when a query fails while its rows stream: DuckDB's own error (most often out of
            // memory) is not handed on, so no damage to the input can be claimed
            return "DuckDB stopped the query while its rows were read, most often out of memory (its budget: "
                    + "FLAGTRACE_ANALYZE_MEMORY)";
        }
        if (m.contains("No files found") || m.contains("No such file")) {
            return "the file cannot be found";
        }
        if (m.contains("IO Error") && m.contains("ermission")) {
            return "the file cannot be read (permission denied)";
        }
        return "its Parquet structure is damaged or it is not Parquet (the footer, the metadata or a page cannot be read)";
    }

    /**
     * How much of the input the analyses see: {rows, ranks} of {@code events} and {rows, ranks} of the
     * whole input (equal without a step window).
     */
    public long[] kept() throws IOException {
        try (Statement s = db.createStatement();
                ResultSet rs = s.executeQuery("SELECT (SELECT COUNT(*) FROM " + Analyses.INPUT_TABLE + "), (SELECT COUNT(DISTINCT rank) FROM "
                        + Analyses.INPUT_TABLE + "), (SELECT COUNT(*) FROM " + ALL + "), (SELECT COUNT(DISTINCT rank) FROM " + ALL + ")")) {
            rs.next();
            return new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)};
        } catch (SQLException e) {
            throw new IOException("cannot count the events table: " + words(e), e);
        }
    }

    /** DuckDB's value of setting {@code name} on this connection ({@code current_setting}), as text, or null. */
    String setting(String name) throws IOException {
        try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery("SELECT CAST(current_setting(" + literal(name) + ") AS VARCHAR)")) {
            rs.next();
            return rs.getString(1);
        } catch (SQLException e) {
            throw new IOException("cannot read DuckDB's setting " + name + ": " + words(e), e);
        }
    }

    /** DuckDB's physical plan of {@code select} on this connection, as {@code EXPLAIN} prints it. */
    String plan(String select) throws IOException {
        StringBuilder b = new StringBuilder();
        try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery("EXPLAIN " + select)) {
            while (rs.next()) {
                b.append(rs.getString(2)).append('\n');
            }
            return b.toString();
        } catch (SQLException e) {
            throw new IOException("cannot plan " + select + ": " + words(e), e);
        }
    }

    /** The file of the database that holds table {@code name}, as DuckDB names it; null where that database is in memory. */
    String databaseFile(String name) throws IOException {
        try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery("SELECT d.path FROM duckdb_tables() t JOIN duckdb_databases() d"
                + " ON d.database_name = t.database_name WHERE t.table_name = " + literal(name))) {
            if (!rs.next()) {
                throw new IOException("DuckDB has no table " + name);
            }
            return rs.getString(1);
        } catch (SQLException e) {
            throw new IOException("cannot find DuckDB's table " + name + ": " + words(e), e);
        }
    }

    /** Runs every analysis, in {@link Analyses#NAMES}'s order. */
    public List<ResultTable> runAll() throws IOException {
        List<ResultTable> out = new ArrayList<>();
        for (String name : Analyses.NAMES) {
            out.add(run(name));
        }
        return out;
    }

    /** Whether {@link CriticalPath#build} has made {@code cp_segments} in this database. */
    private CriticalPath.Rounds criticalPath;

    /**
     * Makes the critical path's tables (once; {@link CriticalPath}) and says how many rounds it took.
     * {@link #run} of critical_path or critical_path_segments calls it.
     */
    public CriticalPath.Rounds criticalPath() throws IOException {
        return criticalPath(true);
    }

    /** As {@link #criticalPath()}; with {@code sweep} false the key nodes are settled in rounds ({@link CriticalPath#build}). */
    CriticalPath.Rounds criticalPath(boolean sweep) throws IOException {
        return criticalPath(sweep, CriticalPath.eventsPerSlice());
    }

    /** As {@link #criticalPath(boolean)}, {@code cp_nodes} made {@code eventsPerSlice} events at a time ({@link CriticalPath#build}). */
    CriticalPath.Rounds criticalPath(boolean sweep, long eventsPerSlice) throws IOException {
        if (criticalPath == null) {
            criticalPath = CriticalPath.build(engine("the critical path cannot be computed over the events table: "), sweep, eventsPerSlice);
        }
        return criticalPath;
    }

    /** {@link CriticalPath.Engine} on this database; a failure's message starts with {@code failure}. */
    CriticalPath.Engine engine(String failure) {
        return new CriticalPath.Engine() {
            @Override
            public void table(String name, String select) throws IOException {
                execute("CREATE OR REPLACE TABLE " + name + " AS " + select, failure);
            }

            @Override
            public long count(String select) throws IOException {
                try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery(select)) {
                    rs.next();
                    return rs.getLong(1);
                } catch (SQLException e) {
                    throw new IOException(failure + words(e), e);
                }
            }

            @Override
            public void drop(String name) throws IOException {
                execute("DROP TABLE IF EXISTS " + name, failure);
            }

            @Override
            public void sweep(String name, String select) throws IOException {
                DuckDbAnalyses.sweep(db, name, select);
            }
        };
    }

    /**
     * The analyses DuckDB runs a slice of ranks at a time ({@link CriticalPath#perRank}, {@link CriticalPath#eventsPerSlice()}
     * events a statement): every row of theirs depends only on its own rank's events (they pair, order or count each
     * stream's work; nothing is summed across ranks; rank_ops' host events, {@link #rankOps}, are made so too). In one
     * statement, rank_ops ran out of the launcher's 616 MiB at 64 ranks x 1M events, and so did kernel_launches (a join of every
     * launch with its device work) on the device machine, and queue_length at 16 x 1M with a quarter of the memory
     * (docs/benchmarks.md, "`analyze` of 64 × 1M within 1 GiB"). Each ends in an ORDER BY of its columns that orders
     * its rows fully; the slices' rows are stored in the database, then read in that order.
     */
    static final List<String> PER_RANK = List.of("kernel_launches", "queue_length", "stream_idle", "memory_bandwidth",
            "kernel_sequences");

    /** The last line of a per-rank analysis: {@code ORDER BY} its columns. */
    private static final java.util.regex.Pattern LAST_ORDER = java.util.regex.Pattern.compile("(?s)(.*)\\n\\s*ORDER BY ([\\w, ]+?)\\s*;?\\s*$");

    /**
     * A per-rank analysis made as a table ({@link #perRank}): the query that reads its rows in the analysis' order, and the
     * statements the table was made in (one a slice of ranks).
     */
    record PerRankRows(String query, int statements) {
    }

    /**
     * Analysis {@code name} ({@link #PER_RANK}) made as the table {@code table}, a slice of ranks at a time when the
     * events are more than {@code eventsPerSlice}.
     */
    PerRankRows perRank(String name, String table, long eventsPerSlice) throws IOException {
        java.util.regex.Matcher m = LAST_ORDER.matcher(Analyses.sql(name));
        if (!m.matches()) {
            throw new IllegalStateException("analysis " + name + " does not end in ORDER BY its columns");
        }
        int statements = CriticalPath.perRank(engine("analysis " + name + " cannot run over the events table: "), table, m.group(1),
                eventsPerSlice, Analyses.INPUT_TABLE);
        return new PerRankRows("SELECT * FROM " + table + " ORDER BY " + m.group(2), statements);
    }

    /**
     * rank_ops made: its host events (rank_ops_hosts.sql) as a table, a slice of ranks at a time as {@link #perRank}
     * makes the per-rank analyses (its joins ran out of the launcher's memory in one statement at 64 ranks x 1M
     * events, with the windows that nested them then), nested by {@link OpNesting} into {@value OpNesting#TABLE}
     * ({@link #nest}); the query that sums that table (rank_ops.sql), and the statements the host events were made in.
     */
    PerRankRows rankOps(long eventsPerSlice) throws IOException {
        String failure = "analysis rank_ops cannot run over the events table: ";
        int statements = CriticalPath.perRank(engine(failure), OpNesting.HOSTS, Analyses.load(OpNesting.HOSTS), eventsPerSlice,
                Analyses.INPUT_TABLE);
        nest(db, "SELECT * FROM " + OpNesting.HOSTS);
        execute("DROP TABLE IF EXISTS " + OpNesting.HOSTS, failure);
        return new PerRankRows(Analyses.sql("rank_ops"), statements);
    }

    /**
     * {@code select}'s host events (rank_ops_hosts.sql's columns), ordered by {@link OpNesting#ORDER}, streamed through
     * {@link OpNesting} in this JVM, its rows appended to the table {@value OpNesting#TABLE}, as {@link #sweep} does.
     */
    static void nest(Connection db, String select) throws IOException {
        String failure = "analysis rank_ops cannot run over the events table: ";
        try (Statement create = db.createStatement()) {
            create.execute("CREATE OR REPLACE TABLE " + OpNesting.TABLE + " (" + OpNesting.OUTPUT + ")");
        } catch (SQLException e) {
            throw new IOException(failure + words(e), e);
        }
        try (DuckDBConnection writer = db.unwrap(DuckDBConnection.class).duplicate();
             Statement s = db.createStatement();
             ResultSet rs = s.executeQuery("SELECT rank, pid, tid, ts_ns, end_ns, name, self_device_ns FROM (" + select + ") t ORDER BY "
                     + OpNesting.ORDER);
             DuckDBAppender out = writer.createAppender("main", OpNesting.TABLE)) {
            Iterator<OpNesting.Host> rows = rows(rs, r -> {
                int rank = r.getInt(1);
                Integer k = r.wasNull() ? null : rank;
                long pid = r.getLong(2);
                Long p = r.wasNull() ? null : pid;
                long tid = r.getLong(3);
                Long t = r.wasNull() ? null : tid;
                return new OpNesting.Host(k, p, t, r.getLong(4), r.getLong(5), r.getString(6), r.getLong(7));
            });
            for (Iterator<OpNesting.Op> nested = new OpNesting(rows); nested.hasNext(); ) {
                OpNesting.Op o = nested.next();
                out.beginRow();
                if (o.rank() == null) {
                    out.appendNull();
                } else {
                    out.append(o.rank().intValue());
                }
                if (o.name() == null) {
                    out.appendNull();
                } else {
                    out.append(o.name());
                }
                out.append(o.dur());
                out.append(o.selfDevice());
                out.append(o.deviceTotal());
                out.append(o.selfCpu());
                out.endRow();
            }
        } catch (SQLException | IllegalStateException e) {
            Throwable cause = e instanceof IllegalStateException && e.getCause() instanceof SQLException ? e.getCause() : e;
            throw new IOException(failure + words(cause), cause);
        }
    }

    /**
     * The driver's setting (a connection's) that makes a query's result stream, chunk by chunk, rather than be
     * materialised whole before its first row; {@link #open}'s connection has it on.
     */
    static final String STREAM_RESULTS = DuckDBDriver.JDBC_STREAM_RESULTS;

    /**
     * {@link CriticalPath.Engine#sweep} on DuckDB: {@code select}'s rows, ordered, streamed through the sweep in this
     * JVM, its rows appended to the table {@code name} of connection {@code db}'s database. The ordered rows stream
     * as {@code db} gives them (its {@link #STREAM_RESULTS}, left as it is) and the appender writes through a second
     * connection to the same database: an appender cannot flush into a connection while a streaming result holds it,
     * and a result read whole lies outside DuckDB's memory_limit (docs/analysis.md, "Memory").
     */
    static void sweep(Connection db, String name, String select) throws IOException {
        int n = CriticalPathSweep.COLUMNS.size();
        try (Statement create = db.createStatement()) {
            create.execute("CREATE OR REPLACE TABLE " + name + " (" + String.join(" BIGINT, ", CriticalPathSweep.OUTPUT) + " BIGINT)");
        } catch (SQLException e) {
            throw new IOException("the critical path cannot be computed over the events table: " + words(e), e);
        }
        try (DuckDBConnection writer = db.unwrap(DuckDBConnection.class).duplicate();
             Statement s = db.createStatement();
             ResultSet rs = s.executeQuery("SELECT " + String.join(", ", CriticalPathSweep.COLUMNS) + " FROM (" + select + ") t ORDER BY "
                     + String.join(", ", CriticalPathSweep.ORDER));
             DuckDBAppender out = writer.createAppender("main", name)) {
            Iterator<long[]> rows = rows(rs, r -> {
                long[] row = new long[n];
                for (int i = 0; i < n; i++) {
                    row[i] = r.getLong(i + 1);
                }
                return row;
            });
            for (Iterator<long[]> swept = new CriticalPathSweep(rows); swept.hasNext(); ) {
                long[] row = swept.next();
                out.beginRow();
                for (long v : row) {
                    out.append(v);
                }
                out.endRow();
            }
        } catch (SQLException | IllegalStateException e) {
            Throwable cause = e instanceof IllegalStateException && e.getCause() instanceof SQLException ? e.getCause() : e;
            throw new IOException("the critical path cannot be computed over the events table: " + words(cause), cause);
        }
    }

    /** One row of a result read as a {@code T}. */
    private interface RowReader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    /**
     * {@code rs}'s rows, each read by {@code read} as it is reached (a failure of the result's as an
     * IllegalStateException around its SQLException).
     */
    private static <T> Iterator<T> rows(ResultSet rs, RowReader<T> read) {
        return new Iterator<>() {
            private Boolean more;

            @Override
            public boolean hasNext() {
                try {
                    if (more == null) {
                        more = rs.next();
                    }
                    return more;
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }

            @Override
            public T next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                more = null;
                try {
                    return read.read(rs);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }
        };
    }

    /** Sets {@link #STREAM_RESULTS} (never RESET: DuckDB then fails the connection's next query, an internal error). */
    private static void streamResults(Connection db, boolean on) throws SQLException {
        try (Statement s = db.createStatement()) {
            s.execute("SET " + STREAM_RESULTS + " = " + on);
        }
    }

    private void execute(String sql, String failure) throws IOException {
        try (Statement s = db.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IOException(failure + words(e), e);
        }
    }

    /** Where {@link #stream} puts a table: its columns first, then each row. */
    public interface TableSink {
        /** The column names, before any row. */
        void columns(List<String> columns) throws IOException;

        /** One row, each value a Long, a String or null ({@link #value}). */
        void row(List<Object> row) throws IOException;
    }

    /** Runs analysis {@code name}, its rows kept in memory. */
    public ResultTable run(String name) throws IOException {
        List<String> columns = new ArrayList<>();
        List<List<Object>> rows = new ArrayList<>();
        stream(name, new TableSink() {
            @Override
            public void columns(List<String> c) {
                columns.addAll(c);
            }

            @Override
            public void row(List<Object> row) {
                rows.add(row);
            }
        });
        return new ResultTable(name, columns, rows);
    }

    /** Runs analysis {@code name}, giving its rows to {@code sink} one at a time as DuckDB gives them (none kept here). */
    public void stream(String name, TableSink sink) throws IOException {
        stream(name, sink, CriticalPath.eventsPerSlice());
    }

    /** The table {@link #perRank} stores a per-rank analysis' rows in, dropped once they are read. */
    private static final String PER_RANK_ROWS = "flagtrace_per_rank_rows";

    /**
     * As {@link #stream(String, TableSink)}, an analysis of {@link #PER_RANK} (or rank_ops' host events, {@link #rankOps})
     * made {@code eventsPerSlice} events at a time; returns the statements it was made in (1 for any other analysis).
     */
    int stream(String name, TableSink sink, long eventsPerSlice) throws IOException {
        if (CriticalPath.TABLES.contains(name)) {
            criticalPath();
        }
        PerRankRows made = name.equals("rank_ops") ? rankOps(eventsPerSlice)
                : PER_RANK.contains(name) ? perRank(name, PER_RANK_ROWS, eventsPerSlice) : new PerRankRows(Analyses.sql(name), 1);
        try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery(made.query())) {
            ResultSetMetaData meta = rs.getMetaData();
            List<String> columns = new ArrayList<>();
            for (int i = 1; i <= meta.getColumnCount(); i++) {
                columns.add(meta.getColumnLabel(i));
            }
            sink.columns(List.copyOf(columns));
            while (rs.next()) {
                List<Object> row = new ArrayList<>(columns.size());
                for (int i = 1; i <= columns.size(); i++) {
                    row.add(value(rs.getObject(i), name, columns.get(i - 1)));
                }
                sink.row(row);
            }
        } catch (SQLException | ArithmeticException e) {
            throw new IOException("analysis " + name + " cannot run over the events table: " + words(e), e);
        }
        if (PER_RANK.contains(name) || name.equals("rank_ops")) {
            execute("DROP TABLE IF EXISTS " + (name.equals("rank_ops") ? OpNesting.TABLE : PER_RANK_ROWS),
                    "analysis " + name + " cannot run over the events table: ");
        }
        return made.statements();
    }

    /** A value as the analyses promise them: a whole number as a Long, text as a String, or null. */
    public static Object value(Object v, String table, String column) {
        if (v == null || v instanceof String || v instanceof Long) {
            return v;
        }
        if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
            return ((Number) v).longValue();
        }
        if (v instanceof BigInteger b) {
            return b.longValueExact();
        }
        throw new IllegalStateException(table + "." + column + " holds a " + v.getClass().getSimpleName()
                + " (" + v + "); the analyses give whole numbers and text only");
    }

    private static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    @Override
    public void close() throws IOException {
        try {
            db.close();
        } catch (SQLException e) {
            throw new IOException("cannot close DuckDB: " + words(e), e);
        } finally {
            ScratchFolders.remove(links);
            ScratchFolders.remove(spill);
        }
    }
}
