package org.flagos.trace.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import org.flagos.trace.capture.AtomicOutput;
import org.flagos.trace.capture.CaptureFailedException;
import org.flagos.trace.journal.JournalOptions;
import org.flagos.trace.model.DeviceTracer;
import org.flagos.trace.model.Workload;
import org.flagos.trace.session.Profiler;
import org.flagos.trace.session.ProfilerSession;
import org.flagos.trace.session.SessionOptions;
import org.flagos.trace.vendors.Vendors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code flagtrace record}: a built-in GPU workload run in this JVM under the live tracer. */
@Command(name = "record", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, sortOptions = false, sortSynopsis = false, separator = " ",
        header = "Run a built-in GPU workload under the live tracer and write its trace.",
        description = "Runs the workload in this JVM under the live tracer (NVIDIA: CUPTI). With --dump-buffers the"
                + " raw buffers, ops, kernel names and device properties are saved for replay; with --journal"
                + " everything is journaled as it arrives (a flight recorder with --retain-*). Needs a GPU"
                + " (without one, the demo command replays a bundled capture).",
        exitCodeListHeading = ExitCodes.HEADING,
        exitCodeList = {ExitCodes.OK_LINE, ExitCodes.FAILED_LINE, ExitCodes.USAGE_LINE})
final class RecordCommand implements Callable<Integer> {
    @Option(names = "--workload", required = true, paramLabel = "NAME", description = "the workload to run: parity (the torch baseline's shape), kinds (syncs, a CUDA graph, allocations, op args)"
            + " or exchange (one of two ranks stepping and exchanging through CUDA IPC; RANK, WORLD_SIZE=2, FLAGTRACE_EXCHANGE_DIR)")
    String workload;

    @Option(names = {"-o", "--output"}, required = true, paramLabel = "TRACE.json|TRACE.pftrace|EVENTS.parquet",
            description = "the trace to write: JSON, or Perfetto's protobuf trace for a .pftrace name; .gz compresses;"
                    + " a name ending in .parquet gets the events as one table (docs/tables.md); its directory must exist")
    Path trace;

    @Option(names = "--summary", paramLabel = "SUMMARY.json", description = "also write the op summary as JSON rows")
    Path summary;

    @Option(names = "--dump-buffers", paramLabel = "CAPTURE.fltrbuf",
            description = "also save the raw buffers (and ops, names, devices beside them) for replay")
    Path dump;

    @Option(names = "--device-properties", paramLabel = "FILE.json|h200",
            description = "device properties for the occupancy fields (default: queried from the device)")
    String deviceProperties;

    @Option(names = "--no-gpu-annotations",
            description = "draw no GPU annotation spans (torch's gpu_user_annotation: each op's span on each stream it"
                    + " ran device work on, nested ops included; drawn by default)")
    boolean noGpuAnnotations;

    @Mixin
    JournalArgs journal = new JournalArgs();

    @Mixin
    TableArgs table = new TableArgs();

    private final CliContext context;

    RecordCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws Exception {
        if (!Vendors.workloads().contains(workload)) {
            throw new UsageException("no workload '" + workload + "'; built in: " + String.join(", ", Vendors.workloads()));
        }
        JournalOptions journalOptions = journal.options();
        OutputPaths.checkTraceName("-o", trace);
        Map<String, Path> outputs = new java.util.LinkedHashMap<>();
        outputs.put("-o", trace);
        outputs.put("--summary", summary);
        outputs.put("--dump-buffers", dump);
        outputs.put("--journal", journalOptions == null ? null : journalOptions.dir());
        outputs.values().removeIf(java.util.Objects::isNull);
        if (dump != null) { // the session writes ops, names, devices and clock beside the dump
            Map<String, Path> others = new java.util.LinkedHashMap<>(outputs);
            others.remove("--dump-buffers");
            Sidecars.refuseAsOutputs(dump, others);
        }
        OutputPaths.check(Map.of(), outputs);
        outputs.remove("--journal");
        OutputPaths.checkWritable(outputs);
        // The tracer first: CUPTI must register before this JVM creates its first CUDA context.
        DeviceTracer tracer = Profiler.initQuietly();
        if (!tracer.available()) {
            throw new CliFailures.CommandFailedException("record runs its workload on a GPU and no device tracer is available here ("
                    + CliFailures.oneLine(tracer.unavailableReason()) + "); without a GPU, '" + Launcher.name() + " demo' or '"
                    + Launcher.name() + " replay CAPTURE' shows the same trace from a capture");
        }
        Workload w = Vendors.workload(workload);
        context.out().println("flagtrace record: tracer " + tracer.name() + "; workload " + w.name() + ": " + w.description());
        SessionOptions options = new SessionOptions(trace, dump, Devices.read(deviceProperties), Map.of(), journalOptions);
        if (noGpuAnnotations) {
            options = options.withoutGpuAnnotations();
        }
        ProfilerSession session = Profiler.start(tracer, options);
        try {
            w.run(session);
        } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
            session.discard();
            throw new CaptureFailedException("workload " + w.name() + " needs an NVIDIA GPU with CUDA 13"
                    + " (cudart, cuBLAS, NVRTC) and could not load them: " + CliFailures.oneLine(e.getMessage()), e);
        } catch (Exception | Error e) {
            session.discard();
            throw e;
        }
        session.close();
        if (summary != null) {
            try (AtomicOutput s = new AtomicOutput(summary)) {
                SummaryJson.write(session.summary(), s.stream());
                s.finish();
                s.commit();
            }
        }
        print(session);
        return ExitCodes.OK;
    }

    private void print(ProfilerSession session) throws IOException {
        context.out().print(OpTable.render(session.summary(), table.layout()));
        context.out().println();
        for (String line : session.accounting().lines()) {
            context.out().println(line);
        }
        context.out().println(ReplayCommand.wrote(trace, session.traceEvents(), session.events())
                + (summary != null ? " and " + summary : "") + (dump != null ? "; buffers in " + dump : "")
                + (journal.journal != null ? "; journal in " + journal.journal : ""));
    }
}
