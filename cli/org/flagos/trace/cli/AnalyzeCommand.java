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
import org.flagos.trace.capture.ScratchFolders;
import org.flagos.trace.ingest.InputFiles;
import org.flagos.trace.sql.Analyses;
import org.flagos.trace.sql.DuckDbAnalyses;
import org.flagos.trace.sql.ResultTable;
import org.flagos.trace.sql.TableSpool;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code flagtrace analyze}: the SQL analyses (cross-rank and device) over an events table, on embedded DuckDB. */
@Command(name = "analyze", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, sortOptions = false, sortSynopsis = false, separator = " ",
        header = "Run the SQL analyses over a Parquet events table.",
        description = "The analyses of docs/analysis.md, each one SQL query giving one table (the critical path's after SQL"
                + " steps), on DuckDB embedded in the"
                + " CLI (nothing to install): rank_steps (each rank's step times), step_stragglers (per step the median,"
                + " fastest and slowest rank and how far over the median), rank_device (per rank the device span split into"
                + " computation, communication, memory and idle, and their overlap), rank_ops (each rank's op table), kernel_stats"
                + " (per kernel name: calls, total, min, max, mean, std, p50/p90/p99), kernel_launches (each launch call with its"
                + " device work and the launch delay), queue_length (per stream, launched work not yet started, over time),"
                + " stream_idle (per stream, idle time split into host wait, kernel wait and other), collectives (each"
                + " collective kernel per rank: kind, bytes, algorithm bandwidth, skew across ranks), memory_bandwidth (per kind of"
                + " copy or set, the bandwidth of those in flight over time, as HTA's), kernel_sequences (per stream"
                + " the most frequent runs of 2 to 5 consecutive kernels, with their count and time), critical_path (per rank the"
                + " longest chain of dependent host calls, launches, device work and syncs: its length split into host,"
                + " computation, communication, memory, launch delay and gaps, and how far over the median rank),"
                + " critical_path_segments (every edge of that path). The"
                + " same SQL runs unchanged on Apache Spark for tables too large for one machine (the spark jar). Times in ns.",
        exitCodeListHeading = ExitCodes.HEADING,
        exitCodeList = {ExitCodes.OK_LINE, ExitCodes.FAILED_LINE, ExitCodes.USAGE_LINE})
final class AnalyzeCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "EVENTS", description = "the events table (docs/tables.md): a .parquet file, or a folder of"
            + " them at any depth read as one table (hidden ones, .name and _name, left out; a file under a folder"
            + " rank=N has rank N, checked against its rank column)")
    Path events;

    @Option(names = {"-o", "--output"}, paramLabel = "DIR", description = "also write each table to DIR/NAME.csv (or .json);"
            + " DIR is made if missing")
    Path output;

    @Option(names = "--format", paramLabel = "csv|json", description = "the files' format with -o: csv (default; a header line) or"
            + " json (an array of objects)")
    String format = "csv";

    @Option(names = "--only", paramLabel = "NAME", split = ",", description = "run only these analyses (comma-separated)")
    List<String> only;

    @Option(names = "--steps", paramLabel = "FIRST-LAST", description = "only the events starting within each rank's"
            + " training steps FIRST to LAST (ProfilerStep#N; N alone: one step); see docs/analysis.md")
    String steps;

    @Option(names = "--rows", paramLabel = "N", description = "print at most N rows of each table (default: every row);"
            + " the -o files hold every row")
    Long rows;

    private final CliContext context;

    AnalyzeCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws IOException {
        if (!format.equals("csv") && !format.equals("json")) {
            throw new UsageException("--format " + format + ": csv or json");
        }
        if (rows != null && rows < 0) {
            throw new UsageException("--rows " + rows + ": a number of rows, 0 or more");
        }
        List<String> names = only == null ? Analyses.NAMES : only;
        for (String n : names) {
            if (!Analyses.NAMES.contains(n)) {
                throw new UsageException("--only " + n + ": no such analysis; there are " + String.join(", ", Analyses.NAMES));
            }
        }
        if (!Files.exists(events)) {
            throw new IOException(events + (Files.isSymbolicLink(events)
                    ? ": a link that leads to no file or folder (a dangling link, or a loop of links)" : ": no such file or folder"));
        }
        if (!Files.isDirectory(events)) {
            InputFiles.requireRegular(events, "an events table"); // a FIFO or a device: its own words, not "no such file"
        }
        Map<String, Path> files = new LinkedHashMap<>();
        if (output != null) {
            Map<String, Path> outputs = new LinkedHashMap<>();
            outputs.put("-o", output);
            for (String n : names) {
                files.put("-o " + n, output.resolve(n + "." + format));
            }
            outputs.putAll(files);
            OutputPaths.refuse(Map.of("EVENTS", events), outputs);
            if (Files.isDirectory(output)) {
                OutputPaths.checkWritable(files); // before the analyses run, not after
            }
        }
        long[] window = steps == null ? null : steps(steps);
        // Each table goes row by row to a scratch folder (its text for the terminal, and its -o file), never whole
        // into memory: a large job's tables have millions of rows (docs/analysis.md, "Memory").
        Path scratch = ScratchFolders.create("analyze-tables");
        List<TableSpool> spools = new ArrayList<>();
        try {
            List<Path> drafts = new ArrayList<>();
            String kept = null;
            try (DuckDbAnalyses duck = DuckDbAnalyses.open(events, window)) {
                if (window != null) {
                    long[] k = duck.kept();
                    String range = window[0] == window[1] ? "step " + window[0] : "steps " + window[0] + "-" + window[1];
                    if (k[0] == 0) {
                        throw new IOException(events + ": no rank has " + range + " (ProfilerStep#N host ops); see rank_steps");
                    }
                    kept = range + ": " + k[0] + " of " + k[2] + " events kept (" + (k[2] - k[0]) + " left out), " + k[1] + " of "
                            + k[3] + " ranks";
                }
                for (String n : names) {
                    TableSpool spool = new TableSpool(scratch, rows == null ? Long.MAX_VALUE : rows);
                    spools.add(spool);
                    Path draft = output == null ? null : scratch.resolve(n + "." + format);
                    if (draft != null) {
                        drafts.add(draft);
                    }
                    try (TableFile file = draft == null ? null : new TableFile(draft, format.equals("json"))) {
                        duck.stream(n, new DuckDbAnalyses.TableSink() {
                            @Override
                            public void columns(List<String> columns) throws IOException {
                                spool.columns(columns);
                                if (file != null) {
                                    file.columns(columns);
                                }
                            }

                            @Override
                            public void row(List<Object> row) throws IOException {
                                spool.add(row);
                                if (file != null) {
                                    file.row(row);
                                }
                            }
                        });
                    }
                }
            }
            if (kept != null) {
                context.out().println(kept);
                context.out().println();
            }
            List<Path> written = output == null ? List.of() : write(names, drafts);
            for (int i = 0; i < names.size(); i++) {
                String n = names.get(i);
                TableSpool t = spools.get(i);
                context.out().println(n + ": " + Analyses.summary(n) + " (" + t.rows() + " rows)");
                t.print(context.out());
                if (t.leftOut() > 0) {
                    context.out().println("(" + t.leftOut() + " more rows not printed: --rows " + rows
                            + (output == null ? "; -o DIR writes every row)" : "; every row is in " + output.resolve(n + "." + format) + ")"));
                }
                context.out().println();
            }
            for (Path p : written) {
                context.out().println("wrote " + p);
            }
            return ExitCodes.OK;
        } finally {
            for (TableSpool t : spools) {
                t.close();
            }
            ScratchFolders.remove(scratch);
        }
    }

    /** One table's -o file as ResultTable's writeCsv or writeJson writes it, written row by row. */
    private static final class TableFile implements AutoCloseable {
        private final java.io.OutputStream out;
        private final com.fasterxml.jackson.core.JsonGenerator json; // null for CSV
        private final java.io.Writer csv; // null for JSON
        private List<String> columns;

        TableFile(Path file, boolean asJson) throws IOException {
            out = new java.io.BufferedOutputStream(Files.newOutputStream(file), 1 << 16);
            json = asJson ? ResultTable.jsonGenerator(out) : null;
            csv = asJson ? null : new java.io.OutputStreamWriter(out, java.nio.charset.StandardCharsets.UTF_8);
        }

        void columns(List<String> c) throws IOException {
            columns = c;
            if (json != null) {
                json.writeStartArray();
            } else {
                csv.write(ResultTable.csvLine(c));
            }
        }

        void row(List<Object> r) throws IOException {
            if (json != null) {
                ResultTable.writeJsonRow(json, columns, r);
            } else {
                csv.write(ResultTable.csvLine(r));
            }
        }

        @Override
        public void close() throws IOException {
            if (json != null) {
                if (columns != null) {
                    json.writeEndArray();
                }
                json.close(); // closes out
            } else {
                csv.close();
            }
        }
    }

    /** {@code --steps}: "N" or "FIRST-LAST", whole numbers, FIRST no more than LAST. */
    static long[] steps(String spec) {
        String[] parts = spec.split("-", -1);
        try {
            long first = Long.parseLong(parts[0].strip());
            long last = parts.length == 2 ? Long.parseLong(parts[1].strip()) : first;
            if (parts.length <= 2 && first >= 0 && first <= last) {
                return new long[] {first, last};
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new UsageException("--steps " + spec + ": a step number N or a range FIRST-LAST (ProfilerStep#N), FIRST <= LAST");
    }

    /**
     * Copies every table's draft (in the scratch folder) to a temporary file beside its place first, and renames
     * them into place only when all are whole: a failure while writing leaves none of them. A failure of a rename
     * itself (rare: the folder changed under the run) says exactly which tables were already in place.
     */
    private List<Path> write(List<String> names, List<Path> drafts) throws IOException {
        Files.createDirectories(output);
        List<AtomicOutput> outs = new ArrayList<>();
        List<Path> written = new ArrayList<>();
        try {
            for (int i = 0; i < names.size(); i++) {
                Path file = output.resolve(names.get(i) + "." + format);
                AtomicOutput o = new AtomicOutput(file);
                outs.add(o);
                Files.copy(drafts.get(i), o.stream());
                o.finish();
            }
            for (int i = 0; i < outs.size(); i++) {
                Path file = output.resolve(names.get(i) + "." + format);
                try {
                    outs.get(i).commit();
                } catch (IOException e) {
                    throw written.isEmpty() ? e : new IOException(AtomicOutput.describe(e) + "; already written before the"
                            + " failure: " + written, e);
                }
                written.add(file);
            }
            return written;
        } finally {
            for (AtomicOutput o : outs) {
                o.close(); // a temporary not committed is deleted
            }
        }
    }
}
