package org.flagos.trace.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import org.flagos.trace.capture.AtomicOutput;
import org.flagos.trace.ingest.FltrbufFrames;
import org.flagos.trace.report.KeyAverages;
import org.flagos.trace.report.KeyAveragesJson;
import org.flagos.trace.report.KeyAveragesTable;
import org.flagos.trace.report.RankOps;
import org.flagos.trace.report.RankOpsTable;
import org.flagos.trace.report.RankTimes;
import org.flagos.trace.report.RankTimesTable;
import org.flagos.trace.report.SortKey;
import org.flagos.trace.report.TraceFile;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.TypeConversionException;

/** {@code flagtrace summary}: torch's key_averages table for any torch-compatible trace. */
@Command(name = "summary", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, sortOptions = false, sortSynopsis = false, separator = " ",
        header = "Print torch's key_averages table of any torch-compatible trace.",
        description = "Self and total CPU and device time and calls per op, as torch's key_averages() counts them,"
                + " for any torch-compatible trace, PyTorch's own included: a table 100 columns wide, or with --wide"
                + " torch's own table.",
        exitCodeListHeading = ExitCodes.HEADING,
        exitCodeList = {ExitCodes.OK_LINE, ExitCodes.FAILED_LINE, ExitCodes.USAGE_LINE})
final class SummaryCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "TRACE", description = "the trace to summarise: torch-compatible JSON (either torch schema, object or bare array, gzipped or not) or flagtrace's .pftrace")
    Path trace;

    @Option(names = "--json", paramLabel = "OUT.json", description = "also write the rows as JSON")
    Path json;

    @Option(names = "--ranks", description = "TRACE is a merged trace (flagtrace merge): instead of the op table, per step the"
            + " slowest rank and how far over the median rank, and per rank the device time split into computation,"
            + " communication (NCCL-style collective kernels), memory copies and sets and idle, and how much communication"
            + " overlaps computation; then each rank's calls and self device time per op, side by side")
    boolean ranks;

    @Option(names = "--sort", paramLabel = "KEY", converter = SortKeyConverter.class,
            description = "torch's sort key: self_device_time_total (default; cpu_time_total without device time),"
                    + " self_cpu_time_total, cpu_time_total, count, ... (cuda_ spellings too)")
    SortKey sort;

    @Option(names = "--limit", paramLabel = "N", converter = RowCountConverter.class, description = "print the first N rows only")
    int limit = -1;

    @Mixin
    TableArgs table = new TableArgs();

    private final CliContext context;

    SummaryCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws IOException {
        checkPaths(Map.of("trace", trace), json);
        if (ranks) {
            return ranks();
        }
        TraceFile file = TraceFile.read(trace);
        KeyAverages averages = KeyAverages.of(file);
        SortKey by = sort != null ? sort : averages.hasDeviceTime() ? SortKey.SELF_DEVICE_TIME_TOTAL : SortKey.CPU_TIME_TOTAL;
        if (json != null) {
            writeJson(json, out -> KeyAveragesJson.write(file, averages, by, limit, out));
        }
        context.out().print(KeyAveragesTable.render(averages, by, limit, table.layout()));
        if (file.invalidEvents() > 0) {
            context.out().println("left out: " + file.invalidEvents() + " complete events without a usable name, ts or dur");
        }
        if (json != null) {
            context.out().println("wrote " + json);
        }
        return ExitCodes.OK;
    }

    /**
     * Before a long read, not after it: refuses a {@code --json} output (null: none) that is one of the {@code inputs}
     * (by their names in the message) or cannot be written, and an input that is a capture ({@link #refuseCapture}).
     */
    static void checkPaths(Map<String, Path> inputs, Path json) {
        Map<String, Path> outputs = new LinkedHashMap<>();
        if (json != null) {
            outputs.put("--json", json);
        }
        OutputPaths.refuse(inputs, outputs);
        OutputPaths.checkWritable(outputs);
        inputs.values().forEach(SummaryCommand::refuseCapture);
    }

    /** What {@link #writeJson} writes into the file. */
    interface JsonBody {
        void write(OutputStream out) throws IOException;
    }

    /** {@code json} written whole or not at all ({@link AtomicOutput}). */
    static void writeJson(Path json, JsonBody body) throws IOException {
        try (AtomicOutput o = new AtomicOutput(json)) {
            body.write(o.stream());
            o.finish();
            o.commit();
        }
    }

    /**
     * A capture given where a trace is read (by name or by its first bytes) is refused with the command
     * that turns it into one, instead of "not valid JSON".
     */
    static void refuseCapture(Path trace) {
        if (FltrbufFrames.isCapture(trace)) {
            throw new CliFailures.CommandFailedException(trace + " is a capture, not a trace: replay it first ("
                    + Launcher.name() + " replay " + trace + " -o TRACE.json) and give the trace this command");
        }
    }

    private int ranks() throws IOException {
        if (sort != null || limit >= 0 || table.wide) {
            throw new UsageException("--sort, --limit and --wide are for the op table, not --ranks");
        }
        RankTimes times = RankTimes.read(trace);
        RankOps ops = RankOps.read(trace, times);
        if (json != null) {
            writeJson(json, out -> RankTimesTable.write(times, ops, out));
        }
        context.out().print(RankTimesTable.render(times));
        context.out().println();
        context.out().print(RankOpsTable.render(ops));
        if (times.invalidEvents() + times.unplacedEvents() > 0) {
            context.out().println("left out: " + times.invalidEvents() + " complete events without a usable name, ts or dur, "
                    + times.unplacedEvents() + " on a pid of no rank");
        }
        if (json != null) {
            context.out().println("wrote " + json);
        }
        return ExitCodes.OK;
    }

    /** torch's sort keys, by name. */
    static final class SortKeyConverter implements ITypeConverter<SortKey> {
        @Override
        public SortKey convert(String value) {
            SortKey key = SortKey.parse(value);
            if (key == null) {
                throw new TypeConversionException("one of " + SortKey.names() + " is needed; got '" + value + "'");
            }
            return key;
        }
    }

    /** A row count, 0 or more. */
    static final class RowCountConverter implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            try {
                int n = Integer.parseInt(value);
                if (n >= 0) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // said below
            }
            throw new TypeConversionException("a row count (0 or more) is needed; got '" + value + "'");
        }
    }
}
