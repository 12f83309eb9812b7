package org.flagos.trace.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.flagos.trace.capture.AtomicOutput;
import org.flagos.trace.capture.TraceFormat;
import org.flagos.trace.merge.ClockChoice;
import org.flagos.trace.merge.TraceMerge;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code flagtrace merge}: the traces of many processes (ranks) as one trace on one clock. */
@Command(name = "merge", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, sortOptions = false, sortSynopsis = false, separator = " ",
        header = "Merge the traces of many processes (ranks) into one trace on one clock.",
        description = "Each trace's processes become a group labelled with its rank, host and pid; ids stay unique and"
                + " every arrow paired; times move onto the clock of the lowest rank with the clock anchors each live"
                + " session records or, for traces without them (torch's), by the ends of the NCCL/RCCL/HCCL collectives"
                + " they share (the median difference of matched ends, with each rank's residual), and the merged trace's"
                + " flagtrace_merge block states each trace's offset and bound. Streamed: memory does not grow with the traces.",
        exitCodeListHeading = ExitCodes.HEADING,
        exitCodeList = {ExitCodes.OK_LINE, ExitCodes.FAILED_LINE, ExitCodes.USAGE_LINE, ExitCodes.TRUNCATED_LINE})
final class MergeCommand implements Callable<Integer> {
    @Parameters(index = "0..*", arity = "1..*", paramLabel = "TRACE", description = "Chrome JSON traces (gzipped or not), one per rank;"
            + " a capture (.fltrbuf[.gz], files beside it read as replay reads them) or a journal directory is replayed first")
    List<Path> traces;

    @Option(names = {"-o", "--output"}, paramLabel = "MERGED.json[.gz]", description = "the merged trace (needed unless"
            + " --print-offsets is given)")
    Path merged;

    @Option(names = "--clock", paramLabel = "auto|monotonic|realtime", converter = ClockConverter.class,
            description = "which anchors align the clocks: auto (default) takes the monotonic clock for traces of the"
                    + " reference's host and boot (exact) and the real-time clock for the others")
    ClockChoice clock = ClockChoice.AUTO;

    @Option(names = "--assume-aligned", description = "merge traces that neither clock anchors nor the ends of shared"
            + " collectives align (torch's traces without collective kernels, replays of captures without a process file)"
            + " with offset 0 instead of refusing them")
    boolean assumeAligned;

    @Option(names = "--print-offsets", description = "print each trace's clock offset as the ends of shared collectives"
            + " measure it (median, residual, ends matched), beside what its clock anchors say, as a tab-separated table;"
            + " without -o nothing is merged")
    boolean printOffsets;

    private final CliContext context;

    MergeCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        Map<String, Path> inputs = new LinkedHashMap<>();
        for (int i = 0; i < traces.size(); i++) {
            inputs.put("trace " + (i + 1), traces.get(i));
        }
        if (merged == null) {
            if (!printOffsets) {
                throw new UsageException("-o MERGED.json is needed (or --print-offsets, to print the clock offsets alone)");
            }
            try (MergeInputs in = new MergeInputs(context)) {
                Path scratch = Path.of(System.getProperty("java.io.tmpdir"));
                for (Path trace : traces) {
                    in.add(trace, scratch);
                }
                printOffsets(in);
                return in.damaged ? ExitCodes.TRUNCATED : ExitCodes.OK;
            }
        }
        OutputPaths.refuse(inputs, Map.of("-o", merged));
        OutputPaths.checkTraceName("-o", merged, List.of(TraceFormat.JSON), "a merged trace is Chrome JSON");
        OutputPaths.checkWritable(Map.of("-o", merged));
        TraceMerge.Result result;
        boolean damaged;
        Path parent = merged.toAbsolutePath().getParent();
        Path scratch = AtomicOutput.writesStraight(merged) || parent == null ? Path.of(System.getProperty("java.io.tmpdir")) : parent;
        AtomicOutput.removeStaleScratch(scratch, "merge"); // what a killed merge left: its replayed inputs
        try (MergeInputs in = new MergeInputs(context)) {
            for (Path trace : traces) {
                in.add(trace, scratch);
            }
            if (printOffsets) {
                printOffsets(in);
            }
            try (AtomicOutput o = new AtomicOutput(merged)) {
                result = TraceMerge.run(in.traces, in.sources, o.stream(), clock, assumeAligned, scratch);
                o.finish();
                o.commit();
            }
            damaged = in.damaged;
        }
        for (String line : result.ranks()) {
            context.out().println(line);
        }
        if (result.collectives() != null) {
            context.out().println(result.collectives());
        }
        String bound = result.boundNs() < 0 ? "unknown: traces without anchors were taken as aligned"
                : "within " + result.boundNs() + " ns" + (result.clock().equals("monotonic") ? " (one host's monotonic clock: exact)"
                        : result.collectives() != null ? " (for traces aligned by collectives: as far as their matched ends show)" : "");
        context.out().println("wrote " + merged + ": " + traces.size() + " traces, " + result.events()
                + " events on one clock, " + bound);
        return damaged ? ExitCodes.TRUNCATED : ExitCodes.OK; // a cut capture or damaged journal: exit 3, as its replay
    }

    private void printOffsets(MergeInputs in) throws IOException {
        context.out().println(TraceMerge.OFFSETS_HEADER);
        for (String row : TraceMerge.offsets(in.traces, in.sources, clock)) {
            context.out().println(row);
        }
    }

    /** {@code auto}, {@code monotonic} or {@code realtime}. */
    static final class ClockConverter implements picocli.CommandLine.ITypeConverter<ClockChoice> {
        @Override
        public ClockChoice convert(String value) {
            for (ClockChoice c : ClockChoice.values()) {
                if (c.name().equalsIgnoreCase(value)) {
                    return c;
                }
            }
            throw new picocli.CommandLine.TypeConversionException("auto, monotonic or realtime is needed; got '" + value + "'");
        }
    }
}
