package org.flagos.trace.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import org.flagos.trace.capture.AtomicOutput;
import org.flagos.trace.capture.CaptureJournal;
import org.flagos.trace.capture.CapturePipeline;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.capture.JournalReplay;
import org.flagos.trace.capture.TraceFormat;
import org.flagos.trace.ingest.CaptureSidecars;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.journal.JournalOptions;
import org.flagos.trace.journal.JournalReader;
import org.flagos.trace.journal.JournalWindow;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.report.KeyAveragesJson;
import org.flagos.trace.report.TableLayout;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code flagtrace replay}: a saved capture ({@code .fltrbuf[.gz]}) or a journal directory to a
 * torch-compatible Chrome trace and an op summary; a capture can be journaled on the way.
 */
@Command(name = "replay", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, sortOptions = false, sortSynopsis = false, separator = " ",
        header = "Turn a capture or a journal into a torch-compatible trace and an op summary.",
        description = "Replays a saved vendor capture, or a journal directory (whole or a window of it). What a live"
                + " session saves beside a capture NAME.fltrbuf is read when present and no option names another"
                + " file: host ops from NAME.ops.jsonl, kernel names from NAME.names.tsv, its clock from"
                + " NAME.clock.json, device properties from NAME.devices.json, the marks flagtrace run received from"
                + " NAME.marks.jsonl; stderr names the files read. Device"
                + " properties (for the occupancy fields) may also come from a JSON file or a torch trace of the"
                + " same machine.",
        exitCodeListHeading = ExitCodes.HEADING,
        exitCodeList = {ExitCodes.OK_LINE, ExitCodes.FAILED_LINE, ExitCodes.USAGE_LINE, ExitCodes.TRUNCATED_LINE})
final class ReplayCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "CAPTURE|JOURNAL_DIR",
            description = "a capture (.fltrbuf, .fltrbuf.gz) or a journal directory")
    Path capture;

    @Option(names = {"-o", "--output"}, required = true, paramLabel = "TRACE.json|TRACE.pftrace|EVENTS.parquet",
            description = "the trace to write: torch-compatible JSON, or Perfetto's protobuf trace for a name ending in"
                    + " .pftrace (the same slices, args and arrows, about a third of the size); .gz after either"
                    + " compresses it; a name ending in .parquet gets the events as one table (its columns: docs/tables.md); its"
                    + " directory must exist; a character device or FIFO such as /dev/null is written straight to")
    Path trace;

    @Option(names = "--ops", paramLabel = "OPS.jsonl[.gz]",
            description = "host op ranges and the capture window (default: CAPTURE.ops.jsonl beside the capture, which a"
                    + " live session writes beside its dump)")
    Path ops;

    @Option(names = "--summary", paramLabel = "SUMMARY.json", description = "also write the op summary (in the schema of every summary file)")
    Path summary;

    @Option(names = "--names", paramLabel = "NAMES.tsv", description = "kernel name table (default: CAPTURE.names.tsv)")
    Path names;

    @Option(names = "--device-properties", paramLabel = "FILE.json|h200",
            description = "device properties for the occupancy fields: a JSON file, a torch trace from the same machine, or"
                    + " a bundled name (h200)")
    String deviceProperties;

    @Option(names = "--metadata", paramLabel = "KEY=VALUE", description = "a top-level field of the trace (repeatable)")
    List<String> metadata = new ArrayList<>();

    @Option(names = "--no-gpu-annotations",
            description = "draw no GPU annotation spans (torch's gpu_user_annotation: each op's span on each stream it"
                    + " ran device work on, nested ops included; drawn by default)")
    boolean noGpuAnnotations;

    @Mixin
    WindowArgs window = new WindowArgs();

    @Mixin
    JournalArgs journal = new JournalArgs();

    @Mixin
    TableArgs table = new TableArgs();

    private final CliContext context;

    ReplayCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        Map<String, String> meta = Devices.metadata(metadata);
        JournalOptions journalOptions = journal.options();
        if (Files.isDirectory(capture) && !JournalReader.isJournal(capture)) {
            throw new CliFailures.CommandFailedException(capture + " is a directory that is not a flagtrace journal (it has no"
                    + " metadata.cq4t); replay takes a capture file (.fltrbuf or .fltrbuf.gz) or a journal directory written by"
                    + " --journal");
        }
        if (JournalReader.isJournal(capture)) {
            if (journalOptions != null) {
                throw new UsageException("--journal journals a .fltrbuf capture; " + capture + " is a journal already");
            }
            return exportJournal(meta);
        }
        if (window.given()) {
            throw new UsageException("--from/--to/--last select a window of a journal directory, and " + capture + " is none");
        }
        if (ops != null && !Files.exists(ops)) {
            throw new CliFailures.CommandFailedException("--ops " + ops + ": no such file; a live session writes one beside its"
                    + " dump (" + Launcher.name() + " record ... --dump-buffers CAPTURE.fltrbuf writes CAPTURE.ops.jsonl; format in"
                    + " docs/formats.md), or leave --ops out to replay the device records alone");
        }
        return replayCapture(meta, journalOptions);
    }

    private int replayCapture(Map<String, String> meta, JournalOptions journalOptions) throws IOException, InterruptedException {
        Path opsUsed = ops != null ? ops : CaptureSidecars.OPS.found(capture);
        Path namesUsed = names != null ? names : CaptureSidecars.NAMES.found(capture);
        Path devicesUsed = deviceProperties != null ? Devices.file(deviceProperties) : CaptureSidecars.DEVICES.found(capture);
        Map<String, Path> inputs = new LinkedHashMap<>();
        inputs.put("capture", capture);
        inputs.put(ops != null ? "--ops file" : "host ops file beside the capture", opsUsed);
        inputs.put(names != null ? "--names table" : "kernel name table beside the capture", namesUsed);
        inputs.put(deviceProperties != null ? "--device-properties file" : "device properties file beside the capture", devicesUsed);
        inputs.put("device clock file beside the capture", CaptureSidecars.CLOCK.found(capture));
        inputs.put("process file beside the capture", CaptureSidecars.PROCESS.found(capture));
        Map<String, Path> outputs = new LinkedHashMap<>();
        outputs.put("-o", trace);
        outputs.put("--summary", summary);
        outputs.put("--journal", journalOptions == null ? null : journalOptions.dir());
        inputs.values().removeIf(Objects::isNull);
        outputs.values().removeIf(Objects::isNull);
        OutputPaths.refuse(inputs, outputs); // sidecars too, where none is yet: the next replay would read it
        OutputPaths.checkTraceName("-o", trace);
        outputs.remove("--journal");
        if (journalOptions != null) {
            OutputPaths.checkOutside("journal directory being written", journalOptions.dir(), outputs);
        }
        OutputPaths.checkWritable(outputs);
        List<DeviceProperties> devices = Devices.read(deviceProperties);
        CaptureReplay.Request request = CaptureReplay.request(capture, opsUsed, names, devices, meta).withFormat(TraceFormat.of(trace));
        if (noGpuAnnotations) {
            request = request.withoutGpuAnnotations();
        }
        Sidecars.tell(context, capture, ops, names, deviceProperties); // once every input read has been checked
        if (journalOptions != null) {
            Map<Long, String> table = namesUsed != null ? KernelNameFile.read(namesUsed).entries() : Map.of();
            long buffers = CaptureJournal.write(request, table, journalOptions);
            context.out().println("journaled " + buffers + " buffers of " + capture + " into " + journalOptions.dir());
        }
        CaptureReplay.Result result;
        // Both outputs are written to temporary files and renamed only when both are complete.
        try (AtomicOutput t = new AtomicOutput(trace);
             AtomicOutput s = summary == null ? null : new AtomicOutput(summary);
             ReplayProgress progress = ReplayProgress.start(context, capture)) {
            result = CaptureReplay.run(request, t.stream(), progress);
            commit(t, s, result);
        }
        printResult(context, result, trace, summary, table.layout());
        if (result.truncated()) {
            context.err().println("flagtrace: warning: " + capture + " is cut short (" + result.truncation()
                    + "); the trace holds every whole record before the cut");
            return ExitCodes.TRUNCATED;
        }
        return ExitCodes.OK;
    }

    private int exportJournal(Map<String, String> meta) throws IOException, InterruptedException {
        if (ops != null || names != null) {
            throw new UsageException("a journal carries its own ops and names: --ops and --names do not apply");
        }
        JournalWindow selected = window.window();
        Map<String, Path> outputs = new LinkedHashMap<>();
        outputs.put("-o", trace);
        if (summary != null) {
            outputs.put("--summary", summary);
        }
        OutputPaths.refuse(Map.of("journal", capture), outputs);
        OutputPaths.checkTraceName("-o", trace);
        OutputPaths.checkWritable(outputs);
        JournalReplay.Request request = new JournalReplay.Request(capture, selected, Devices.read(deviceProperties), meta,
                CapturePipeline.DEFAULT_RING_SIZE, !noGpuAnnotations, TraceFormat.of(trace));
        JournalReplay.Result result;
        try (AtomicOutput t = new AtomicOutput(trace);
             AtomicOutput s = summary == null ? null : new AtomicOutput(summary)) {
            result = JournalReplay.run(request, t.stream());
            commit(t, s, result.replay());
        } catch (JournalReplay.WindowException e) {
            throw new UsageException(e.getMessage());
        }
        printResult(context, result.replay(), trace, summary, table.layout());
        if (!selected.isAll()) {
            context.out().println("window " + result.windowStartNs() + " .. " + result.windowEndNs() + " ns (epoch)");
        }
        for (String warning : result.warnings()) {
            context.err().println("flagtrace: warning: " + warning);
        }
        return result.warnings().isEmpty() ? ExitCodes.OK : ExitCodes.TRUNCATED;
    }

    private static void commit(AtomicOutput trace, AtomicOutput summary, CaptureReplay.Result result) throws IOException {
        if (summary != null) {
            KeyAveragesJson.write(result.summary(), summary.stream());
            summary.finish();
        }
        trace.finish();
        trace.commit();
        if (summary != null) {
            summary.commit();
        }
    }

    /** The op table, every count of what was kept and dropped, and what was written (counts as the file holds them). */
    static void printResult(CliContext context, CaptureReplay.Result result, Path trace, Path summary, TableLayout layout) {
        context.out().print(OpTable.render(result.summary(), layout));
        context.out().println();
        for (String line : result.accounting().lines()) {
            context.out().println(line);
        }
        context.out().println(wrote(trace, result.traceEvents(), result.events()) + (summary != null ? " and " + summary : ""));
    }

    /**
     * What the file holds, counted as its format counts: for JSON {@code wrote T (N trace events: M
     * records, ops and flow ends, K row labels and markers)}, N being traceEvents' length; for a
     * {@code .pftrace} {@code wrote T (N slices: M records and ops, K capture span)}, where an arrow is
     * a flow id on its two slices and a row name a track descriptor, neither of them an event. The
     * same capture thus prints more JSON trace events than .pftrace slices (docs/formats.md).
     */
    static String wrote(Path trace, long traceEvents, long events) {
        if (TraceFormat.of(trace) == TraceFormat.PARQUET) {
            return "wrote " + trace + " (" + traceEvents + " rows: " + events + " records, ops and flow ends, "
                    + (traceEvents - events) + " capture span events; the table is described in docs/tables.md)";
        }
        if (TraceFormat.of(trace) == TraceFormat.PERFETTO) {
            return "wrote " + trace + " (" + traceEvents + " slices: " + events + " records and ops, "
                    + (traceEvents - events) + " capture span; arrows and row names are not slices in a .pftrace)";
        }
        return "wrote " + trace + " (" + traceEvents + " trace events: " + events + " records, ops and flow ends, "
                + (traceEvents - events) + " row labels and markers)";
    }
}
