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
import org.flagos.trace.sql.Analyses;
import org.flagos.trace.sql.DuckDbAnalyses;
import org.flagos.trace.sql.ResultTable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code flagtrace analyze}: the SQL analyses (cross-rank and device) over an events table, on embedded DuckDB. */
@Command(name = "analyze", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, sortOptions = false, sortSynopsis = false, separator = " ",
        header = "Run the SQL analyses over a Parquet events table.",
        description = "The analyses of docs/analysis.md, each one SQL query giving one table (the critical path's after SQL"
                + " rounds), on DuckDB embedded in the"
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

    private final CliContext context;

    AnalyzeCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws IOException {
        if (!format.equals("csv") && !format.equals("json")) {
            throw new UsageException("--format " + format + ": csv or json");
        }
        List<String> names = only == null ? Analyses.NAMES : only;
        for (String n : names) {
            if (!Analyses.NAMES.contains(n)) {
                throw new UsageException("--only " + n + ": no such analysis; there are " + String.join(", ", Analyses.NAMES));
            }
        }
        if (!Files.exists(events)) {
            throw new IOException(events + ": no such file or folder");
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
        List<ResultTable> tables = new ArrayList<>();
        String kept = null;
        try (DuckDbAnalyses duck = DuckDbAnalyses.open(events, window)) {
            if (window != null) {
                long[] k = duck.kept();
                String range = window[0] == window[1] ? "step " + window[0] : "steps " + window[0] + "-" + window[1];
                if (k[0] == 0) {
                    throw new IOException(events + ": no rank has " + range + " (ProfilerStep#N host ops); see rank_steps");
                }
                kept = range + ": " + k[0] + " of " + k[2] + " events kept (" + (k[2] - k[0]) + " left out), " + k[1] + " of " + k[3]
                        + " ranks";
            }
            for (String n : names) {
                tables.add(duck.run(n));
            }
        }
        if (kept != null) {
            context.out().println(kept);
            context.out().println();
        }
        List<Path> written = output == null ? List.of() : write(tables);
        for (ResultTable t : tables) {
            context.out().println(t.name() + ": " + Analyses.summary(t.name()) + " (" + t.rows().size() + " rows)");
            context.out().print(t.render());
            context.out().println();
        }
        for (Path p : written) {
            context.out().println("wrote " + p);
        }
        return ExitCodes.OK;
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
     * Writes every table to a temporary file first, and renames them into place only when all are
     * whole: a failure while writing leaves none of them. A failure of a rename itself (rare: the
     * folder changed under the run) says exactly which tables were already in place.
     */
    private List<Path> write(List<ResultTable> tables) throws IOException {
        Files.createDirectories(output);
        List<AtomicOutput> outs = new ArrayList<>();
        List<Path> written = new ArrayList<>();
        try {
            for (ResultTable t : tables) {
                Path file = output.resolve(t.name() + "." + format);
                AtomicOutput o = new AtomicOutput(file);
                outs.add(o);
                if (format.equals("csv")) {
                    t.writeCsv(o.stream());
                } else {
                    t.writeJson(o.stream());
                }
                o.finish();
            }
            for (int i = 0; i < outs.size(); i++) {
                Path file = output.resolve(tables.get(i).name() + "." + format);
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
