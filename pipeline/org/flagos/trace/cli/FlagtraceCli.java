package org.flagos.trace.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.capture.AtomicOutput;
import org.flagos.trace.capture.CaptureFailedException;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.ingest.CaptureFormatException;
import org.flagos.trace.ingest.DevicePropertiesFile;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.pipeline.DeviceProperties;
import org.flagos.trace.pipeline.DeviceTracer;
import org.flagos.trace.pipeline.Workload;
import org.flagos.trace.session.Profiler;
import org.flagos.trace.session.ProfilerSession;
import org.flagos.trace.session.SessionOptions;
import org.flagos.trace.vendors.Vendors;

/**
 * The {@code flagtrace} command line. Never touches the network. Exit codes: 0 done; 1 bad input
 * or failure (one line on stderr, no output file left behind); 2 usage; 3 the capture was cut
 * short: the trace holds everything decoded before the cut.
 */
public final class FlagtraceCli {
    static final int OK = 0;
    static final int FAILED = 1;
    static final int USAGE = 2;
    static final int TRUNCATED = 3;

    private static final String USAGE_TEXT = String.join("\n",
            "usage: flagtrace demo [-o DIR]",
            "       flagtrace replay CAPTURE.fltrbuf[.gz] [--ops OPS.jsonl] -o TRACE.json[.gz] [--summary SUMMARY.json]",
            "       flagtrace record --workload parity -o TRACE.json [--summary SUMMARY.json] [--dump-buffers CAPTURE.fltrbuf]",
            "                        [--names NAMES.tsv] [--device-properties FILE.json|h200] [--metadata KEY=VALUE]...",
            SummaryCommand.USAGE,
            ReportCommand.USAGE,
            JournalCommands.USAGE,
            "",
            "replay  turns a saved vendor capture into a torch-compatible Chrome trace and an op summary.",
            "        The kernel name table is read from CAPTURE.names.tsv when present; device properties",
            "        (for occupancy figures) come from a JSON file or a torch trace of the same machine.",
            "record  runs a built-in GPU workload in this JVM under the live tracer (NVIDIA: CUPTI); with",
            "        --dump-buffers the raw buffers, ops, kernel names and device properties are saved for replay.",
            "demo    replays the bundled H200 capture into DIR (default flagtrace-demo/).",
            SummaryCommand.HELP,
            ReportCommand.HELP,
            JournalCommands.HELP);

    private final PrintStream out;
    private final PrintStream err;

    FlagtraceCli(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        System.exit(new FlagtraceCli(System.out, System.err).run(args));
    }

    int run(String[] args) {
        if (args.length == 0 || args[0].equals("-h") || args[0].equals("--help")) {
            (args.length == 0 ? err : out).println(USAGE_TEXT);
            return args.length == 0 ? USAGE : OK;
        }
        try {
            switch (args[0]) {
                case "replay": {
                    Integer journaled = new JournalCommands(this, out, err).replay(args);
                    return journaled != null ? journaled : replay(ReplayArguments.parse(args));
                }
                case "demo":
                    return demo(args);
                case "record":
                    return record(args);
                case "summary":
                    return SummaryCommand.run(args, out);
                case "report":
                    return ReportCommand.run(args, out);
                default:
                    err.println("flagtrace: unknown command '" + args[0] + "'\n" + USAGE_TEXT);
                    return USAGE;
            }
        } catch (UsageException e) {
            err.println("flagtrace: " + e.getMessage() + "\n" + USAGE_TEXT);
            return USAGE;
        } catch (CaptureFormatException | CaptureFailedException e) {
            err.println("flagtrace: error: " + e.getMessage());
            return FAILED;
        } catch (IOException e) {
            err.println("flagtrace: error: " + AtomicOutput.describe(e));
            return FAILED;
        } catch (java.io.UncheckedIOException e) {
            err.println("flagtrace: error: " + AtomicOutput.describe(e.getCause()));
            return FAILED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("flagtrace: interrupted");
            return FAILED;
        } catch (OutOfMemoryError e) {
            err.println("flagtrace: error: out of memory (" + e.getMessage() + "); give the JVM more heap,"
                    + " e.g. FLAGTRACE_JAVA_OPTS=-Xmx8g, or split the capture");
            return FAILED;
        } catch (StackOverflowError e) {
            err.println("flagtrace: error: stack overflow while processing the input (a pathological name or nesting?)");
            return FAILED;
        } catch (Throwable e) { // anything else ends the run with one line, never a stack trace
            err.println("flagtrace: internal error: " + oneLine(e) + " (please report it with the input)");
            return FAILED;
        }
    }

    private static String oneLine(Throwable e) {
        String text = e.toString();
        int nl = text.indexOf('\n');
        return nl < 0 ? text : text.substring(0, nl);
    }

    int replay(ReplayArguments a) throws IOException, InterruptedException {
        Map<String, Path> inputs = new LinkedHashMap<>();
        inputs.put("capture", a.capture);
        inputs.put("--ops file", a.ops);
        inputs.put("kernel name table", a.names != null ? a.names : KernelNameFile.besides(a.capture));
        inputs.put("device properties file", a.deviceProperties != null && !a.deviceProperties.equals("h200")
                ? Path.of(a.deviceProperties) : DevicePropertiesFile.besides(a.capture));
        Map<String, Path> outputs = new LinkedHashMap<>();
        outputs.put("-o", a.trace);
        outputs.put("--summary", a.summary);
        inputs.values().removeIf(java.util.Objects::isNull);
        outputs.values().removeIf(java.util.Objects::isNull);
        OutputPaths.check(inputs, outputs);
        List<DeviceProperties> devices = devices(a.deviceProperties);
        CaptureReplay.Request request = CaptureReplay.request(a.capture, a.ops, a.names, devices, a.metadata);
        CaptureReplay.Result result;
        // Both outputs are written to temporary files and renamed only when both are complete.
        try (AtomicOutput trace = new AtomicOutput(a.trace);
             AtomicOutput summary = a.summary == null ? null : new AtomicOutput(a.summary)) {
            result = CaptureReplay.run(request, trace.stream());
            if (summary != null) {
                SummaryJson.write(result.summary(), summary.stream());
                summary.finish();
            }
            trace.finish();
            trace.commit();
            if (summary != null) {
                summary.commit();
            }
        }
        report(result, a);
        if (result.truncated()) {
            err.println("flagtrace: warning: " + a.capture + " is cut short (" + result.truncation()
                    + "); the trace holds every whole record before the cut");
            return TRUNCATED;
        }
        return OK;
    }

    void report(CaptureReplay.Result result, ReplayArguments a) {
        out.print(result.summary().table());
        out.println();
        for (String line : result.accounting().lines()) {
            out.println(line);
        }
        out.println("wrote " + a.trace + " (" + result.events() + " events)"
                + (a.summary != null ? " and " + a.summary : ""));
    }

    private int demo(String[] args) throws IOException, InterruptedException {
        Path dir = Path.of("flagtrace-demo");
        if (args.length == 3 && args[1].equals("-o")) {
            dir = Path.of(args[2]);
        } else if (args.length != 1) {
            throw new UsageException("demo takes only -o DIR");
        }
        Files.createDirectories(dir);
        Path input = Files.createTempDirectory("flagtrace-demo");
        try {
            for (String file : List.of("h200-app.fltrbuf", "h200-app.ops.jsonl", "h200-app.names.tsv")) {
                try (InputStream in = FlagtraceCli.class.getResourceAsStream("/org/flagos/trace/demo/" + file)) {
                    if (in == null) {
                        throw new CaptureFormatException("bundled demo file " + file + " is missing from the jar");
                    }
                    Files.copy(in, input.resolve(file), StandardCopyOption.REPLACE_EXISTING);
                }
            }
            out.println("flagtrace demo: replaying a real CUPTI capture from an NVIDIA H200 (cuBLAS SGEMM + ReLU,"
                    + " a CUB sort, copies, a memset)");
            String[] replay = {
                "replay", input.resolve("h200-app.fltrbuf").toString(),
                "--ops", input.resolve("h200-app.ops.jsonl").toString(),
                "--device-properties", "h200",
                "-o", dir.resolve("trace.json").toString(),
                "--summary", dir.resolve("summary.json").toString(),
            };
            int code = replay(ReplayArguments.parse(replay));
            out.println("open " + dir.resolve("trace.json") + " in chrome://tracing or Perfetto's UI to see the timeline");
            return code;
        } finally {
            try (var files = Files.list(input)) {
                for (Path p : (Iterable<Path>) files::iterator) {
                    Files.deleteIfExists(p);
                }
            }
            Files.deleteIfExists(input);
        }
    }

    private int record(String[] all) throws Exception {
        // The tracer first: CUPTI must register before this JVM creates its first CUDA context.
        DeviceTracer tracer = Profiler.init();
        JournalCommands.Parsed journal = JournalCommands.parse(all);
        if (journal.windowed()) {
            throw new UsageException("--from/--to/--last select a window of a journal at replay, not at record");
        }
        String[] args = journal.rest.toArray(new String[0]);
        String workloadName = null;
        Path trace = null;
        Path summary = null;
        Path dump = null;
        String deviceProperties = null;
        for (int i = 1; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--workload": workloadName = ReplayArguments.value(args, ++i, arg); break;
                case "-o": case "--output": trace = Path.of(ReplayArguments.value(args, ++i, arg)); break;
                case "--summary": summary = Path.of(ReplayArguments.value(args, ++i, arg)); break;
                case "--dump-buffers": dump = Path.of(ReplayArguments.value(args, ++i, arg)); break;
                case "--device-properties": deviceProperties = ReplayArguments.value(args, ++i, arg); break;
                default: throw new UsageException("unexpected argument '" + arg + "'");
            }
        }
        if (workloadName == null || trace == null) {
            throw new UsageException("record needs --workload NAME and -o TRACE.json");
        }
        Workload workload = Vendors.workload(workloadName);
        if (workload == null) {
            throw new UsageException("no workload '" + workloadName + "'; built in: " + Vendors.workloads());
        }
        out.println("flagtrace record: tracer " + tracer.name() + (tracer.available() ? "" : " (unavailable: " + tracer.unavailableReason() + ")")
                + "; workload " + workload.name() + ": " + workload.description());
        SessionOptions options = new SessionOptions(trace, dump, devices(deviceProperties), Map.of(),
                journal.journal == null ? null : journal.options());
        ProfilerSession session = Profiler.start(options);
        try {
            workload.run(session);
        } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
            session.discard();
            throw new CaptureFailedException("workload " + workload.name() + " needs an NVIDIA GPU with CUDA 13"
                    + " (cudart, cuBLAS, NVRTC) and could not load them: " + e.getMessage(), e);
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
        out.print(session.summary().table());
        out.println();
        for (String line : session.accounting().lines()) {
            out.println(line);
        }
        out.println("wrote " + trace + " (" + session.events() + " events)" + (summary != null ? " and " + summary : "")
                + (dump != null ? "; buffers in " + dump : "") + (journal.journal != null ? "; journal in " + journal.journal : ""));
        return OK;
    }

    static List<DeviceProperties> devices(String spec) throws IOException {
        if (spec == null) {
            return List.of();
        }
        if (spec.equals("h200")) {
            try (InputStream in = FlagtraceCli.class.getResourceAsStream("/org/flagos/trace/devices/nvidia-h200.json")) {
                if (in == null) {
                    throw new CaptureFormatException("bundled H200 device properties are missing from the jar");
                }
                return DevicePropertiesFile.read(in, "bundled nvidia-h200.json");
            }
        }
        return DevicePropertiesFile.read(Path.of(spec));
    }

    /** Bad command line; the message says which argument. */
    static final class UsageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    /** The parsed arguments of {@code replay}. */
    static final class ReplayArguments {
        Path capture;
        Path ops;
        Path trace;
        Path summary;
        Path names;
        String deviceProperties;
        final Map<String, String> metadata = new LinkedHashMap<>();

        static ReplayArguments parse(String[] args) {
            ReplayArguments a = new ReplayArguments();
            for (int i = 1; i < args.length; i++) {
                String arg = args[i];
                switch (arg) {
                    case "--ops": a.ops = Path.of(value(args, ++i, arg)); break;
                    case "-o": case "--output": a.trace = Path.of(value(args, ++i, arg)); break;
                    case "--summary": a.summary = Path.of(value(args, ++i, arg)); break;
                    case "--names": a.names = Path.of(value(args, ++i, arg)); break;
                    case "--device-properties": a.deviceProperties = value(args, ++i, arg); break;
                    case "--metadata": {
                        String kv = value(args, ++i, arg);
                        int eq = kv.indexOf('=');
                        if (eq <= 0) {
                            throw new UsageException("--metadata wants KEY=VALUE, got '" + kv + "'");
                        }
                        a.metadata.put(kv.substring(0, eq), kv.substring(eq + 1));
                        break;
                    }
                    default:
                        if (arg.startsWith("-") || a.capture != null) {
                            throw new UsageException("unexpected argument '" + arg + "'");
                        }
                        a.capture = Path.of(arg);
                }
            }
            if (a.capture == null) {
                throw new UsageException("replay needs a capture file");
            }
            if (a.trace == null) {
                throw new UsageException("replay needs -o TRACE.json");
            }
            for (String reserved : org.flagos.trace.stages.TraceHeader.RESERVED_KEYS) {
                if (a.metadata.containsKey(reserved)) {
                    throw new UsageException("--metadata cannot set the reserved key " + reserved);
                }
            }
            return a;
        }

        static String value(String[] args, int i, String option) {
            if (i >= args.length) {
                throw new UsageException(option + " needs a value");
            }
            return args[i];
        }
    }
}
