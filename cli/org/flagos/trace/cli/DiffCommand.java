package org.flagos.trace.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import org.flagos.trace.report.KeyAverages;
import org.flagos.trace.report.SummaryDiff;
import org.flagos.trace.report.TraceFile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code flagtrace diff A B}: two traces' op summaries side by side, what was added, removed, got faster or slower. */
@Command(name = "diff", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, sortOptions = false, sortSynopsis = false, separator = " ",
        header = "Compare two traces' op summaries: ops and device work added, removed, faster, slower.",
        description = "The rows of each trace's summary (the rows `summary --json` writes, by torch's key_averages rule),"
                + " matched by kind and name: a row is added (only in B), removed (only in A), slower or faster (by its device"
                + " time total where it has device time in either trace, else its CPU time total), or changed (the same time,"
                + " other figures not). Per row the calls and the total in A and B, B less A and B over A, largest absolute"
                + " difference first; rows equal in every figure are only counted. --json adds the self, total and mean CPU"
                + " and device times of both.",
        exitCodeListHeading = ExitCodes.HEADING,
        exitCodeList = {ExitCodes.OK_LINE, ExitCodes.FAILED_LINE, ExitCodes.USAGE_LINE})
final class DiffCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "A", description = "the first trace (the baseline): torch-compatible JSON (either torch"
            + " schema, object or bare array, gzipped or not) or flagtrace's .pftrace")
    Path a;

    @Parameters(index = "1", paramLabel = "B", description = "the second trace, compared with A")
    Path b;

    @Option(names = "--json", paramLabel = "OUT.json", description = "also write the rows as JSON (docs/formats.md)")
    Path json;

    @Option(names = "--limit", paramLabel = "N", converter = SummaryCommand.RowCountConverter.class,
            description = "print (and write) the first N rows only")
    int limit = -1;

    private final CliContext context;

    DiffCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws IOException {
        Map<String, Path> inputs = new LinkedHashMap<>();
        inputs.put("A", a);
        inputs.put("B", b);
        SummaryCommand.checkPaths(inputs, json);
        TraceFile fileA = TraceFile.read(a);
        TraceFile fileB = TraceFile.read(b);
        SummaryDiff diff = SummaryDiff.of(KeyAverages.of(fileA), KeyAverages.of(fileB));
        if (json != null) {
            SummaryCommand.writeJson(json, out -> diff.write(a.toString(), b.toString(), limit, out));
        }
        context.out().print(diff.render(limit));
        for (TraceFile f : new TraceFile[] {fileA, fileB}) {
            if (f.invalidEvents() > 0) {
                context.out().println("left out of " + (f == fileA ? "A" : "B") + ": " + f.invalidEvents()
                        + " complete events without a usable name, ts or dur");
            }
        }
        if (json != null) {
            context.out().println("wrote " + json);
        }
        return ExitCodes.OK;
    }
}
