package org.flagos.trace.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.function.Supplier;
import org.flagos.trace.capture.AtomicOutput;
import org.flagos.trace.capture.CaptureFailedException;
import org.flagos.trace.journal.JournalOptions;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.DeviceTracer;
import org.flagos.trace.model.NativeLoadFailure;
import org.flagos.trace.model.OpStack;
import org.flagos.trace.model.Workload;
import org.flagos.trace.report.KeyAveragesJson;
import org.flagos.trace.session.CycleTrace;
import org.flagos.trace.session.Profiler;
import org.flagos.trace.session.ProfilerSession;
import org.flagos.trace.session.ScheduleOptions;
import org.flagos.trace.session.ScheduledSession;
import org.flagos.trace.session.SessionOptions;
import org.flagos.trace.session.StepSchedule;
import org.flagos.trace.session.TraceReadyHandler;
import org.flagos.trace.vendors.Vendors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code flagtrace record}: a built-in GPU workload run in this JVM under the live tracer. */
@Command(name = "record", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, sortOptions = false, sortSynopsis = false, separator = " ",
        header = "Run a built-in GPU workload under the live tracer and write its trace.",
        description = "Runs the workload in this JVM under the live tracer (NVIDIA: CUPTI), into one trace (-o) or,"
                + " with --schedule, in steps under torch's step schedule: one trace per active cycle in --trace-dir,"
                + " named as torch's TensorBoard handler names them, each step a ProfilerStep#N op. With"
                + " --dump-buffers (one trace) or --dump-cycles (each cycle) the raw buffers, ops, kernel names and"
                + " device properties are saved for replay; with --journal everything is journaled as it arrives"
                + " (a flight recorder with --retain-*). Needs a GPU (without one, the demo command replays a"
                + " bundled capture).",
        exitCodeListHeading = ExitCodes.HEADING,
        exitCodeList = {ExitCodes.OK_LINE, ExitCodes.FAILED_LINE, ExitCodes.USAGE_LINE})
final class RecordCommand implements Callable<Integer> {
    @Option(names = "--workload", required = true, paramLabel = "NAME", description = "the workload to run: parity (the torch baseline's shape), kinds (syncs, a CUDA graph, allocations, op args)"
            + " or exchange (one of two ranks stepping and exchanging through CUDA IPC; RANK, WORLD_SIZE=2, FLAGTRACE_EXCHANGE_DIR)")
    String workload;

    @Option(names = {"-o", "--output"}, paramLabel = "TRACE.json|TRACE.pftrace|EVENTS.parquet",
            description = "the trace to write: JSON, or Perfetto's protobuf trace for a .pftrace name; .gz compresses;"
                    + " a name ending in .parquet gets the events as one table (docs/tables.md); its directory must exist;"
                    + " this or --schedule")
    Path trace;

    @Option(names = "--schedule", paramLabel = "wait=W,warmup=U,active=A[,repeat=R][,skip_first=S]",
            description = "run the workload in --steps steps under torch's step schedule (torch.profiler.schedule's keys;"
                    + " also skip_first_wait=0|1): one trace per active cycle in --trace-dir; instead of -o")
    String schedule;

    @Option(names = "--steps", paramLabel = "N", description = "with --schedule: the steps to run (at least 1)")
    Integer steps;

    @Option(names = "--trace-dir", paramLabel = "DIR",
            description = "with --schedule: where each cycle's trace is written (created if missing), as"
                    + " HOST_PID.EPOCH_NS.pt.trace.json")
    Path traceDir;

    @Option(names = "--dump-cycles",
            description = "with --schedule: also save each cycle's raw buffers beside its trace for replay"
                    + " (HOST_PID.EPOCH_NS.fltrbuf with its .ops.jsonl, .names.tsv, .devices.json, ...)")
    boolean dumpCycles;

    @Option(names = "--with-stack", paramLabel = "DEPTH",
            description = "each op records its innermost DEPTH Java frames (1 to " + OpStack.MAX_FRAMES
                    + "), torch's with_stack")
    Integer withStack;

    @Option(names = "--summary", paramLabel = "SUMMARY.json", description = "also write the op summary (in the schema of every summary file)")
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
    private final Live live;

    RecordCommand(CliContext context) {
        this(context, Live.VENDORS);
    }

    RecordCommand(CliContext context, Live live) {
        this.context = context;
        this.live = live;
    }

    /**
     * Where record gets its tracer and its workloads: the vendors' ({@link #VENDORS}), or, in tests
     * without a GPU, a tracer over a fake vendor library and workloads of its own.
     */
    record Live(Supplier<DeviceTracer> tracer, Function<String, Workload> workloads, Supplier<Set<String>> names) {
        static final Live VENDORS = new Live(Profiler::initQuietly, Vendors::workload, Vendors::workloads);
    }

    @Override
    public Integer call() throws Exception {
        if (!live.names().get().contains(workload)) {
            throw new UsageException("no workload '" + workload + "'; built in: " + String.join(", ", live.names().get()));
        }
        if (withStack != null && (withStack < 1 || withStack > OpStack.MAX_FRAMES)) {
            throw new UsageException("--with-stack must be 1 to " + OpStack.MAX_FRAMES + ", was " + withStack);
        }
        if (schedule != null) {
            return callScheduled();
        }
        if (trace == null) {
            throw new UsageException("name the trace to write (-o TRACE.json) or run in steps (--schedule SPEC --steps N"
                    + " --trace-dir DIR)");
        }
        onlyWithSchedule("--steps", steps != null);
        onlyWithSchedule("--trace-dir", traceDir != null);
        onlyWithSchedule("--dump-cycles", dumpCycles);
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
            OutputPaths.refuseSidecars(dump, others);
        }
        OutputPaths.check(Map.of(), outputs);
        outputs.remove("--journal");
        OutputPaths.checkWritable(outputs);
        DeviceTracer tracer = tracer();
        Workload w = live.workloads().apply(workload);
        context.out().println("flagtrace record: tracer " + tracer.name() + "; workload " + w.name() + ": " + w.description());
        SessionOptions options = SessionOptions.builder().trace(trace).dumpBuffers(dump).devices(Devices.read(deviceProperties))
                .journal(journalOptions).build();
        if (noGpuAnnotations) {
            options = options.withoutGpuAnnotations();
        }
        if (withStack != null) {
            options = options.withStack(withStack);
        }
        ProfilerSession session = Profiler.start(tracer, options);
        try {
            w.run(session);
        } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
            session.discard();
            throw needsCuda(w, e);
        } catch (Exception | Error e) {
            session.discard();
            throw e;
        }
        session.close();
        if (summary != null) {
            try (AtomicOutput s = new AtomicOutput(summary)) {
                KeyAveragesJson.write(session.summary(), s.stream());
                s.finish();
                s.commit();
            }
        }
        print(session);
        return ExitCodes.OK;
    }

    /** The tracer first: CUPTI must register before this JVM creates its first CUDA context. */
    private DeviceTracer tracer() {
        DeviceTracer tracer = live.tracer().get();
        if (!tracer.available()) {
            throw new CliFailures.CommandFailedException("record runs its workload on a GPU and no device tracer is available here ("
                    + CliFailures.oneLine(tracer.unavailableReason()) + "); without a GPU, '" + Launcher.name() + " demo' or '"
                    + Launcher.name() + " replay CAPTURE' shows the same trace from a capture");
        }
        return tracer;
    }

    private static CaptureFailedException needsCuda(Workload w, Throwable e) {
        return new CaptureFailedException("workload " + w.name() + " needs an NVIDIA GPU with CUDA 13"
                + " (cudart, cuBLAS, NVRTC) and could not load them: " + CliFailures.oneLine(NativeLoadFailure.describe(e)), e);
    }

    /** {@code --schedule}: the workload in steps, one trace (and with --dump-cycles one dump) per active cycle. */
    private int callScheduled() throws Exception {
        notWithSchedule("-o", trace != null);
        notWithSchedule("--summary", summary != null);
        notWithSchedule("--dump-buffers", dump != null);
        notWithSchedule("--journal", journal.journal != null);
        journal.options(); // refuses --roll and --retain-* without --journal
        StepSchedule plan = ScheduleSpec.parse(schedule);
        if (steps == null) {
            throw new UsageException("--schedule needs --steps N, the steps to run");
        }
        if (steps < 1) {
            throw new UsageException("--steps must be at least 1, was " + steps);
        }
        if (traceDir == null) {
            throw new UsageException("--schedule needs --trace-dir DIR, where each cycle's trace is written");
        }
        if (Files.exists(traceDir) && !Files.isDirectory(traceDir)) {
            throw new UsageException("--trace-dir " + traceDir + " is not a directory");
        }
        Workload w = live.workloads().apply(workload);
        if (!w.runsInSteps()) {
            throw new UsageException("workload " + w.name() + " runs in one piece and has no steps: --schedule runs a workload"
                    + " with steps (" + String.join(", ", withSteps()) + ")");
        }
        DeviceTracer tracer = tracer();
        context.out().println("flagtrace record: tracer " + tracer.name() + "; workload " + w.name() + ": " + w.description()
                + "; " + steps + " steps, schedule " + schedule);
        TraceReadyHandler tensorboard = TraceReadyHandler.tensorboard(traceDir);
        List<DeviceProperties> devices = Devices.read(deviceProperties);
        ScheduleOptions options = ScheduleOptions.in(traceDir, plan).onTraceReady(trace -> {
            tensorboard.onTraceReady(trace);
            printCycle(trace);
        }).withSession(s -> s.withDevices(devices));
        if (noGpuAnnotations) {
            options = options.withoutGpuAnnotations();
        }
        if (withStack != null) {
            options = options.withStack(withStack);
        }
        if (dumpCycles) {
            options = options.withBufferDumps();
        }
        ScheduledSession session = Profiler.start(tracer, options);
        try {
            w.runSteps(session, session::step, steps);
        } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
            throw needsCuda(w, e);
        } finally {
            session.close(); // a failed workload still hands over the cycle it was recording, as torch's profiler does
        }
        List<String> failures = session.failures();
        context.out().println("flagtrace record: " + session.cycles() + " cycle" + (session.cycles() == 1 ? "" : "s")
                + " in " + traceDir + (failures.isEmpty() ? "" : ", " + failures.size() + " failed"));
        if (!failures.isEmpty()) {
            throw new CliFailures.CommandFailedException(failures.size() + " of " + session.cycles() + " cycles failed: "
                    + String.join("; ", failures));
        }
        return ExitCodes.OK;
    }

    private static void onlyWithSchedule(String option, boolean given) {
        if (given) {
            throw new UsageException(option + " goes with --schedule, and there is none");
        }
    }

    private static void notWithSchedule(String option, boolean given) {
        if (given) {
            throw new UsageException(option + " writes one trace's files and --schedule writes one set per cycle: give"
                    + " one or the other (--dump-cycles saves each cycle's buffers)");
        }
    }

    private List<String> withSteps() {
        List<String> out = new ArrayList<>();
        for (String name : live.names().get()) {
            if (live.workloads().apply(name).runsInSteps()) {
                out.add(name);
            }
        }
        return out;
    }

    /** On the trace-ready thread, once the handler moved the cycle's files: its op table, counts and files. */
    private void printCycle(CycleTrace cycle) {
        StringBuilder b = new StringBuilder();
        b.append(OpTable.render(cycle.summary(), table.layout())).append(System.lineSeparator());
        for (String line : cycle.accounting().lines()) {
            b.append(line).append(System.lineSeparator());
        }
        List<String> files = new ArrayList<>();
        for (Path file : cycle.files()) {
            files.add(file.getFileName().toString());
        }
        b.append(cycle).append(": wrote ").append(cycle.traceEvents()).append(" trace events; ")
                .append(String.join(", ", files)).append(" in ").append(traceDir);
        synchronized (context.out()) {
            context.out().println(b);
        }
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
