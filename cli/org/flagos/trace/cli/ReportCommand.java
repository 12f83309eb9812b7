package org.flagos.trace.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.flagos.trace.capture.AtomicOutput;
import org.flagos.trace.encoders.EventTable;
import org.flagos.trace.report.HtmlReport;
import org.flagos.trace.report.KeyAverages;
import org.flagos.trace.report.RankOps;
import org.flagos.trace.report.RankTimes;
import org.flagos.trace.report.TraceFile;
import org.flagos.trace.report.TraceTables;
import org.flagos.trace.sql.CriticalPath;
import org.flagos.trace.sql.DuckDbAnalyses;
import org.flagos.trace.sql.ResultTable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code flagtrace report}: one self-contained HTML page for any torch-compatible trace. */
@Command(name = "report", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, sortOptions = false, sortSynopsis = false, separator = " ",
        header = "Write one self-contained HTML page about any torch-compatible trace.",
        description = "The page (no network) holds the op table, the top kernels, device time by op, each stream's"
                + " busy time, and the capture's loss counts; for a merged trace (flagtrace merge) also its ranks: step time"
                + " per rank, each rank's device time split, the slowest rank per step and the ranks' op tables side by side;"
                + " with --critical-path also each rank's critical path, with --memory-bandwidth the memory bandwidth over time,"
                + " with --kernel-sequences the most frequent runs of kernels.",
        exitCodeListHeading = ExitCodes.HEADING,
        exitCodeList = {ExitCodes.OK_LINE, ExitCodes.FAILED_LINE, ExitCodes.USAGE_LINE})
final class ReportCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "TRACE", description = "the trace to report on: torch-compatible JSON (either torch schema, object or bare array, gzipped or not) or flagtrace's .pftrace")
    Path trace;

    @Option(names = {"-o", "--output"}, required = true, paramLabel = "REPORT.html", description = "the page to write")
    Path html;

    @Option(names = "--critical-path", description = "add the critical path of each rank (as analyze's critical_path: the trace"
            + " is made an events table in a temporary folder and DuckDB computes it; docs/analysis.md)")
    boolean criticalPath;

    @Option(names = "--memory-bandwidth", description = "add each rank's memory bandwidth over time, by kind of copy and set"
            + " (as analyze's memory_bandwidth, computed as --critical-path is; docs/analysis.md)")
    boolean memoryBandwidth;

    @Option(names = "--kernel-sequences", description = "add each stream's most frequent runs of 2 to 5 kernels"
            + " (as analyze's kernel_sequences, computed as --critical-path is; docs/analysis.md)")
    boolean kernelSequences;

    private final CliContext context;

    ReportCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws IOException {
        OutputPaths.refuse(Map.of("trace", trace), Map.of("-o", html));
        OutputPaths.checkPageName("-o", html);
        OutputPaths.checkWritable(Map.of("-o", html)); // before a long read, not after it
        SummaryCommand.refuseCapture(trace);
        String name = trace.getFileName().toString();
        List<String> asked = new ArrayList<>();
        if (criticalPath) {
            asked.addAll(CriticalPath.TABLES);
        }
        if (memoryBandwidth) {
            asked.add("memory_bandwidth");
        }
        if (kernelSequences) {
            asked.add("kernel_sequences");
        }
        if (!asked.isEmpty() && (name.endsWith(".pftrace") || name.endsWith(".pftrace.gz"))) {
            throw new UsageException(flags() + " reads JSON traces (TRACE.json, TRACE.json.gz), as flagtrace tables does: "
                    + name + " is a .pftrace");
        }
        TraceFile file = TraceFile.read(trace);
        KeyAverages averages = KeyAverages.of(file);
        RankTimes times = null;
        RankOps ops = null;
        if (file.merged()) { // two more passes, only for flagtrace merge's output: other pages keep their bytes
            times = RankTimes.read(trace);
            ops = RankOps.read(trace, times);
        }
        Map<String, ResultTable> tables = asked.isEmpty() ? Map.of() : analyses(trace, asked);
        ResultTable[] path = criticalPath ? new ResultTable[] {tables.get("critical_path"), tables.get("critical_path_segments")} : null;
        try (AtomicOutput o = new AtomicOutput(html)) {
            HtmlReport.write(trace.getFileName().toString(), file, averages, times, ops, path, tables.get("memory_bandwidth"),
                    tables.get("kernel_sequences"), o.stream());
            o.finish();
            o.commit();
        }
        context.out().println("wrote " + html + " (open it in any browser; it needs no network)");
        return ExitCodes.OK;
    }

    /** The flags that make the report compute analyze's tables, as the user gave them. */
    private String flags() {
        List<String> f = new ArrayList<>();
        if (criticalPath) {
            f.add("--critical-path");
        }
        if (memoryBandwidth) {
            f.add("--memory-bandwidth");
        }
        if (kernelSequences) {
            f.add("--kernel-sequences");
        }
        return String.join(", ", f);
    }

    /**
     * The analyses {@code names} of {@code trace} (analyze's tables, docs/analysis.md): its events written
     * as a Parquet table in a private temporary folder (as {@code flagtrace tables} writes it), DuckDB's
     * analyses over it, the folder deleted after.
     */
    static Map<String, ResultTable> analyses(Path trace, List<String> names) throws IOException {
        Path scratch = Files.createTempDirectory("flagtrace-report-");
        Path parquet = scratch.resolve("events.parquet");
        try {
            try (EventTable events = new EventTable(scratch)) {
                new TraceTables(events).read(trace);
                events.writeParquet(parquet);
            }
            try (DuckDbAnalyses duck = DuckDbAnalyses.open(parquet)) {
                Map<String, ResultTable> out = new java.util.LinkedHashMap<>();
                for (String n : names) {
                    out.put(n, duck.run(n));
                }
                return out;
            }
        } finally {
            try (var left = Files.walk(scratch)) {
                for (Path p : left.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }
}
