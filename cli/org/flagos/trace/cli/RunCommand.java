package org.flagos.trace.cli;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import org.flagos.trace.ingest.IoFailureWords;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code flagtrace run -- CMD ARGS...}: runs an unchanged program with every JVM of its process tree
 * traced by flagtrace's agent (handed down through {@code JAVA_TOOL_OPTIONS}, which every JVM the
 * tree starts reads), every other process that initialises CUDA traced through CUPTI's injection
 * hook and every one with Ascend's ACL runtime through MSPTI by preload ({@link InjectedRun}), one trace
 * per process in one folder, merged at the end into one.
 */
@Command(name = "run", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, sortOptions = false, sortSynopsis = false, separator = " ",
        header = "Run a program unchanged with every CUDA or Ascend process and JVM of its tree traced, then merge their traces.",
        description = "Starts CMD with its standard input, output and error its own (flagtrace's lines go to stderr)."
                + " A process of its tree that initialises CUDA loads flagtrace's injected library through CUDA_INJECTION64_PATH"
                + " (NVTX ranges through NVTX_INJECTION64_PATH become ops), which hands CUPTI's buffers to run over a Unix"
                + " socket; a process with Ascend's ACL runtime loaded does the same with MSPTI's buffers through the library"
                + " run puts in LD_PRELOAD (mstx ranges become ops); each such process gives DIR/flagtrace-PID.fltrbuf with"
                + " the files beside it, replayed into"
                + " DIR/flagtrace-PID.json when the tree is done (docs/run.md). Every Java 17+ JVM of the tree gets"
                + " flagtrace's agent through JAVA_TOOL_OPTIONS instead (each prints the JDK's one 'Picked up"
                + " JAVA_TOOL_OPTIONS' line on its standard error) and writes DIR/flagtrace-PID.json when it exits or"
                + " after --duration. On demand: with --start-later each CUDA process is traced only between 'flagtrace"
                + " start' and 'flagtrace stop' (or --duration), each armed window its own trace,"
                + " DIR/flagtrace-PID-wN.json; --delay arms each process that long after it initialises CUDA; --capture-range"
                + " arms each process only while an NVTX (or mstx) range of that name is open, or between cudaProfilerStart"
                + " and cudaProfilerStop, a window per range. With more than"
                + " one trace of different processes and no window armed on demand, they are merged into DIR/merged.json,"
                + " leaving out a process that did no device work (a launcher that only initialised CUDA)."
                + " Exits with CMD's exit code (127 when CMD is not found, 126 when it cannot be executed, as a shell's), but"
                + " 3 when CMD exited 0 and a process that reached run left no capture or a damaged one, or a window's capture"
                + " did not become a trace: run's last line counts them (a process that could not reach run says so on its own"
                + " stderr, 'flagtrace: process PID runs untraced...').",
        exitCodeListHeading = ExitCodes.HEADING,
        exitCodeList = {"0:done: the program exited 0, and every process that reached run left its trace",
            "3:the program exited 0, but a process that reached run left no capture or a damaged one, or a capture did not"
                + " become a trace (the last line counts them)",
            "*:any other code: the program's own, losses or not (1 also: CMD could not start)", ExitCodes.USAGE_LINE})
final class RunCommand implements Callable<Integer> {
    /** A trace of a window armed on demand: flagtrace-PID-wN.json. */
    private static final java.util.regex.Pattern WINDOW_TRACE = java.util.regex.Pattern.compile("flagtrace-\\d+-w\\d+\\.json");

    @Option(names = {"-d", "--dir"}, paramLabel = "DIR", description = "where the traces go (created; default flagtrace-run-TIME)")
    Path dir;

    @Option(names = "--start-later", description = "load the tracer into each CUDA process disarmed: 'flagtrace start' arms"
            + " it, 'flagtrace stop' disarms it (JVMs of the tree are not traced then: 'flagtrace attach PID' arms one)")
    boolean startLater;

    @Option(names = "--delay", paramLabel = "SECONDS", description = "arm each process that long after it starts (a CUDA"
            + " process: after it initialises CUDA)")
    Double delay;

    @Option(names = "--duration", paramLabel = "SECONDS", description = "stop each process's session that long after arming"
            + " (a CUDA process: each armed window)")
    Double duration;

    @Option(names = "--capture-range", paramLabel = "nvtx:NAME|mstx:NAME|cudaProfilerApi", description = "arm each CUDA"
            + " (Ascend) process only while an NVTX (mstx) range named NAME is open on any of its threads (NVTX:"
            + " NAME in the default domain, NAME@DOMAIN in that domain, NAME@* in any), or from"
            + " cudaProfilerStart to cudaProfilerStop: one trace per window (nested and overlapping ranges of the name give"
            + " one), DIR/flagtrace-PID-wN.json, naming its range; JVMs of the tree are not traced then")
    String captureRange;

    @Option(names = "--capture-range-end", paramLabel = "repeat|stop|repeat:N", description = "with --capture-range: how"
            + " many windows each process's range opens: every one (repeat, the default), the first (stop, as nsys's"
            + " default) or the first N (repeat:N); the process runs on untraced after them")
    String captureRangeEnd;

    @Option(names = "--journal", paramLabel = "JOURNAL_DIR", description = "also journal each CUDA or Ascend process's"
            + " capture (each window's) into JOURNAL_DIR/flagtrace-PID[-wN], a new or empty directory: 'flagtrace replay'"
            + " of one gives its trace again (written when the tree is done; JVMs of the tree are not journaled)")
    Path journal;

    @Option(names = "--agent-jar", paramLabel = "JAR", description = "the jar to load as the agent (default: flagtrace's own,"
            + " target/flagtrace.jar)")
    Path agentJar;

    @Parameters(index = "0..*", arity = "1..*", paramLabel = "CMD", description = "the program and its arguments (after --)")
    List<String> command;

    private final CliContext context;

    RunCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        String capture = CaptureRange.checked(captureRange);
        int captureWindows = CaptureRange.windows(captureRangeEnd, capture);
        if (capture != null && (startLater || delay != null)) {
            throw new UsageException("--capture-range arms each process itself: it does not go with "
                    + (startLater ? "--start-later" : "--delay"));
        }
        Path journalDir = journal == null ? null : journal.toAbsolutePath();
        if (journalDir != null && Files.exists(journalDir) && (!Files.isDirectory(journalDir) || !isEmpty(journalDir))) {
            throw new UsageException("--journal wants a new or empty directory: " + journalDir + " is "
                    + (Files.isDirectory(journalDir) ? "not empty" : "not a directory"));
        }
        Path out = (dir != null ? dir : Path.of("flagtrace-run-" + System.currentTimeMillis())).toAbsolutePath();
        Path jar = AgentJar.of(agentJar);
        String options = AgentJar.checked("dir=" + out + (delay != null ? ",delay=" + delay : "")
                + (duration != null ? ",duration=" + duration : ""), 0);
        for (String s : List.of(out.toString(), jar.toString())) {
            if (s.contains(" ") || s.contains(",")) {
                throw new UsageException(s + ": a path with a space or comma cannot go into JAVA_TOOL_OPTIONS");
            }
        }
        boolean made = !Files.exists(out);
        try {
            Files.createDirectories(out);
        } catch (IOException e) {
            throw new IOException("cannot make the run's folder " + out + ": " + IoFailureWords.writing(e), e);
        }
        ProcessBuilder pb = new ProcessBuilder(command).inheritIO();
        if (startLater || capture != null) { // the agent has no disarmed start nor capture range: a JVM would be traced outside every window
            context.err().println("flagtrace run: " + (startLater ? "--start-later" : "--capture-range")
                    + ": JVMs of the tree are not traced ('flagtrace attach PID' arms one)");
        } else {
            String previous = System.getenv("JAVA_TOOL_OPTIONS");
            pb.environment().put("JAVA_TOOL_OPTIONS", (previous == null || previous.isBlank() ? "" : previous + " ") + "-javaagent:" + jar + "=" + options);
        }
        int exit;
        Set<Path> idle;
        CaptureLosses losses;
        InjectedRun.OnDemand onDemand = new InjectedRun.OnDemand(startLater, delay, duration, capture, captureWindows);
        if (journalDir != null) {
            Files.createDirectories(journalDir);
        }
        try (InjectedRun injected = new InjectedRun(out, onDemand, journalDir)) {
            pb.environment().putAll(injected.environment(pb.environment().get("LD_PRELOAD")));
            Process process;
            try {
                process = pb.start();
            } catch (IOException e) {
                int code = CommandNotStarted.exitCode(e);
                context.err().println("flagtrace run: cannot start " + command.get(0) + ": " + CommandNotStarted.why(e)
                        + "; exit " + code + ", as a shell's");
                if (made) {
                    injected.close();
                    CommandNotStarted.removeEmptyRun(out);
                }
                return code;
            }
            exit = process.waitFor();
            injected.finish(context.err());
            idle = injected.withoutDeviceWork();
            losses = injected.losses();
        }
        List<Path> traces = traces(out);
        String head = "flagtrace run: " + command.get(0) + " exited with " + exit + "; ";
        if (traces.size() == 1) {
            context.err().println(head + "1 trace: " + traces.get(0));
        } else {
            context.err().println(head + traces.size() + " traces in " + out + (!traces.isEmpty() ? ":"
                    : onDemand.disarmedAtStart() ? " (no window was armed)"
                    : " (no process of the tree initialised CUDA or loaded Ascend's ACL, and no JVM ran)"));
            for (Path t : traces) {
                context.err().println("  " + t.getFileName());
            }
        }
        boolean windows = traces.stream().anyMatch(t -> WINDOW_TRACE.matcher(t.getFileName().toString()).matches());
        if (traces.size() > 1 && windows) {
            context.err().println("flagtrace run: windows armed on demand are not merged (merge picks the traces: flagtrace merge)");
        } else if (traces.size() > 1) {
            // A process that only initialised CUDA (torchrun's launcher) would be a rank of nothing in the merged picture.
            List<Path> working = traces.stream().filter(t -> !idle.contains(t)).toList();
            for (Path t : traces) {
                if (idle.contains(t)) {
                    context.err().println("flagtrace run: " + t.getFileName() + " is left out of the merge: its process did no device work");
                }
            }
            if (working.size() > 1) {
                merge(working, out);
            }
        }
        if (losses.any()) { // a missing rank's trace is not a success, whatever the program's code
            context.err().println(losses.line(exit));
        }
        return losses.exitCode(exit);
    }

    /** Merges the traces into DIR/merged.json; the merge's lines go to stderr: run's stdout is the program's alone. */
    private void merge(List<Path> traces, Path out) throws InterruptedException {
        MergeCommand merge = new MergeCommand(new CliContext(context.err(), context.err(), context.terminal(),
                context.progressMinBytes(), context.progressWidth()));
        merge.traces = traces;
        merge.merged = out.resolve("merged.json");
        try {
            if (merge.call() == ExitCodes.OK) {
                context.err().println("flagtrace run: merged into " + merge.merged);
            }
        } catch (RuntimeException | IOException e) { // the program's exit code stands; the merge's failure is one line
            CliFailures.report(e, "flagtrace run: merge", context.err());
        }
    }

    private static boolean isEmpty(Path dir) throws IOException {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            return !entries.iterator().hasNext();
        }
    }

    private static List<Path> traces(Path dir) throws IOException {
        List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "flagtrace-*.json")) {
            files.forEach(f -> {
                String name = f.getFileName().toString(); // not an injected capture's files beside it
                if (name.matches("flagtrace-\\d+\\.json") || WINDOW_TRACE.matcher(name).matches()) {
                    found.add(f);
                }
            });
        }
        found.sort(null);
        return found;
    }

}
