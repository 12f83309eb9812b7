package org.flagos.trace.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.flagos.trace.capture.AtomicOutput;
import org.flagos.trace.capture.TraceFormat;
import org.flagos.trace.report.TraceTables;
import org.flagos.trace.encoders.EventTable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code flagtrace tables}: the events of trace files as one Parquet table (docs/tables.md). */
@Command(name = "tables", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, sortOptions = false, sortSynopsis = false, separator = " ",
        header = "Write the events of traces as one Parquet table that any SQL engine reads.",
        description = "One row per timed event, with its process's rank on every row (a merged trace's slots are its"
                + " ranks), times in ns since the epoch and the ids that pair ops, runtime calls and device work; the"
                + " columns are in docs/tables.md. Rows are sorted by rank, then time; memory stays bounded: past 1,048,576"
                + " rows or 32 MB, sorted runs spill to scratch files beside the output and are merged as it is written.",
        exitCodeListHeading = ExitCodes.HEADING,
        exitCodeList = {ExitCodes.OK_LINE, ExitCodes.FAILED_LINE, ExitCodes.USAGE_LINE})
final class TablesCommand implements Callable<Integer> {
    @Parameters(index = "0..*", arity = "1..*", paramLabel = "TRACE", description = "torch-compatible JSON traces (either torch"
            + " schema, object or bare array, gzipped or not), one per process, or one merged trace (flagtrace merge)")
    List<Path> traces;

    @Option(names = {"-o", "--output"}, required = true, paramLabel = "EVENTS.parquet", description = "the table to write (with"
            + " --partition-by-rank: a folder, made if missing)")
    Path table;

    @Option(names = "--partition-by-rank", description = "write the table into the folder -o as events/rank=N/part-TRACE.parquet,"
            + " one file per rank (and per trace), which never replaces a file: separate processes (one per host) write"
            + " their ranks into one folder, read whole by flagtrace analyze and by Spark (docs/tables.md)")
    boolean partitioned;

    @Option(names = "--rank", paramLabel = "N", description = "the rank of a trace that names none (one trace of one process;"
            + " a trace naming another rank is refused)")
    Integer rank;

    /** The table's folder under the -o folder of --partition-by-rank. */
    static final String TABLE = "events";

    private final CliContext context;

    TablesCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws IOException {
        Map<String, Path> inputs = new LinkedHashMap<>();
        for (int i = 0; i < traces.size(); i++) {
            inputs.put(traces.size() == 1 ? "trace" : "trace " + (i + 1), traces.get(i));
        }
        OutputPaths.refuse(inputs, Map.of("-o", table));
        if (rank != null && (rank < 0 || traces.size() != 1)) {
            throw new UsageException("--rank " + rank + ": " + (rank < 0 ? "a rank is 0 or more" : "the rank of one trace; give one trace"));
        }
        if (partitioned) {
            return partitioned(inputs);
        }
        OutputPaths.checkTraceName("-o", table, List.of(TraceFormat.PARQUET), "the table is a Parquet file");
        OutputPaths.checkWritable(Map.of("-o", table)); // before a long read, not after it
        Path parent = table.toAbsolutePath().getParent();
        Path scratch = AtomicOutput.writesStraight(table) || parent == null ? Path.of(System.getProperty("java.io.tmpdir")) : parent;
        TraceTables read;
        try (EventTable events = new EventTable(scratch)) {
            read = readAll(events);
            try (AtomicOutput o = new AtomicOutput(table)) {
                events.writeParquet(o.stream());
                o.finish();
                o.commit();
            }
        }
        context.out().println("wrote " + table + counts(read));
        return ExitCodes.OK;
    }

    /** Every trace read into {@code events}, in order, under {@code --rank} when given. */
    private TraceTables readAll(EventTable events) throws IOException {
        TraceTables read = new TraceTables(events);
        if (rank != null) {
            read.giveRank(rank);
        }
        for (Path trace : traces) {
            read.read(trace);
        }
        return read;
    }

    private String counts(TraceTables read) {
        return " (" + read.rows() + " rows from " + traces.size()
                + (traces.size() == 1 ? " trace" : " traces") + "; left out: " + read.metadataLeftOut() + " metadata events"
                + (read.untimedLeftOut() > 0 ? ", " + read.untimedLeftOut() + " without a usable ts" : "") + ")";
    }

    /**
     * {@code --partition-by-rank}: the table as {@code DIR/events/rank=N/part-TRACE.parquet}, one file per rank
     * (per rank and trace when several traces are given), each written under a hidden temporary name beside
     * it and put in place by a hard link, which fails where the name exists: no file is ever replaced, and
     * a collision with another process leaves that process's file and none of this run's.
     */
    private int partitioned(Map<String, Path> inputs) throws IOException {
        if (Files.exists(table) && !Files.isDirectory(table)) {
            throw new UsageException("-o " + table + ": with --partition-by-rank, -o is a folder (made if missing)");
        }
        Path made = table.toAbsolutePath();
        while (made.getParent() != null && !Files.exists(made.getParent())) {
            made = made.getParent();
        }
        made = Files.exists(made) ? null : made; // the outermost folder this run makes, or null
        Files.createDirectories(table); // the scratch goes here; the rank folders only when their files are written
        try {
            return writePartitioned(inputs);
        } catch (Throwable e) { // a trace refused, a rank missing: the folders made for it go again, as they were empty
            for (Path p = table.toAbsolutePath(); made != null && p != null && p.startsWith(made); p = p.getParent()) {
                try {
                    Files.delete(p);
                } catch (IOException notEmpty) {
                    break;
                }
            }
            throw e;
        }
    }

    private int writePartitioned(Map<String, Path> inputs) throws IOException {
        Path root = table.resolve(TABLE);
        List<Path> written = new ArrayList<>();
        TraceTables read;
        try (EventTable events = new EventTable(table)) {
            read = readAll(events);
            List<long[]> parts = events.partitions();
            if (!read.unranked().isEmpty() || parts.stream().anyMatch(p -> p[0] < 0)) {
                String which = read.unranked().isEmpty() ? "a process in the traces" : read.unranked().get(0);
                throw new UsageException(which + " names no rank: --partition-by-rank writes each rank's folder rank=N, so give"
                        + " the trace's rank with --rank N (docs/tables.md)");
            }
            if (parts.isEmpty()) {
                throw new IOException("the traces have no timed event: no rank to write under " + root);
            }
            boolean bySlot = traces.size() > 1;
            Map<Path, long[]> targets = new LinkedHashMap<>();
            Map<Long, Path> targetOf = new java.util.HashMap<>(); // (rank, slot) to its file
            for (long[] p : parts) {
                String stem = stem(traces.get(bySlot ? (int) p[1] : 0));
                Path target = root.resolve("rank=" + p[0]).resolve("part-" + stem + ".parquet");
                targetOf.put(key(p[0], p[1]), target);
                long[] before = targets.get(target);
                if (before != null && !bySlot) {
                    continue; // a merged trace's slots of one rank: one file (the rank's rows)
                }
                if (before != null) {
                    throw new UsageException(target + ": two traces of rank " + p[0] + " have the name " + stem + "; rename one");
                }
                refuseExisting(target);
                targets.put(target, new long[] {p[0], bySlot ? p[1] : -1});
            }
            List<Path> temporaries = new ArrayList<>();
            try {
                Map<Path, Path> temporaryOf = new java.util.HashMap<>();
                for (Path target : targets.keySet()) {
                    Path folder = Files.createDirectories(target.getParent());
                    Path temporary = folder.resolve("." + target.getFileName() + "." + ProcessHandle.current().pid() + "-"
                            + System.nanoTime() + ".partial");
                    temporaries.add(temporary);
                    temporaryOf.put(target, temporary);
                }
                events.writeParts((r, s) -> temporaryOf.get(targetOf.get(key(r, s))));
                int i = 0;
                for (Path target : targets.keySet()) {
                    try {
                        place(temporaries.get(i++), target);
                    } catch (java.nio.file.FileAlreadyExistsException e) { // another process put it there meanwhile
                        for (Path w : written) {
                            Files.deleteIfExists(w);
                        }
                        written.clear();
                        refuseExisting(target);
                        throw e;
                    }
                    written.add(target);
                }
            } finally {
                for (Path t : temporaries) {
                    Files.deleteIfExists(t);
                }
            }
        }
        context.out().println("wrote " + (written.size() == 1 ? written.get(0).toString() : written.size() + " files under " + root
                + " (" + written.get(0).getParent().getFileName() + " to " + written.get(written.size() - 1).getParent().getFileName() + ")")
                + counts(read));
        return ExitCodes.OK;
    }

    private static long key(long rank, long slot) {
        return (rank << 32) | (slot & 0xffffffffL);
    }

    /** Puts {@code temporary} in place as {@code target}, never replacing it: a hard link, or a move without replace. */
    private static void place(Path temporary, Path target) throws IOException {
        try {
            Files.createLink(target, temporary);
        } catch (UnsupportedOperationException e) { // a file system without hard links: no replace, by a check
            Files.move(temporary, target);
        }
    }

    private static void refuseExisting(Path target) {
        if (Files.exists(target, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            throw new UsageException(target + " exists: a partitioned table never replaces a file; remove it, or write to"
                    + " another folder");
        }
    }

    /** A trace's name without its folder and its trace suffixes, in letters, digits and {@code . _ -} only. */
    static String stem(Path trace) {
        String name = trace.getFileName().toString();
        for (String suffix : List.of(".gz", ".json", ".pftrace", ".pb")) {
            if (name.endsWith(suffix) && name.length() > suffix.length()) {
                name = name.substring(0, name.length() - suffix.length());
            }
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < name.length() && out.length() < 200; i++) {
            char c = name.charAt(i);
            out.append(c < 128 && (Character.isLetterOrDigit(c) || c == '.' || c == '_' || c == '-') ? c : '_');
        }
        return out.toString();
    }
}
