package org.flagos.trace.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.Callable;
import org.flagos.trace.ingest.CaptureFormatException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code flagtrace demo}: replays the bundled real H200 capture, as {@code replay} would. */
@Command(name = "demo", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, sortOptions = false, sortSynopsis = false, separator = " ",
        header = "Replay a bundled real H200 capture: the quickest look at what flagtrace does.",
        description = "Replays a bundled real CUPTI capture from an NVIDIA H200 (cuBLAS SGEMM + ReLU, a CUB sort,"
                + " copies, a memset) into DIR/trace.json and DIR/summary.json, and prints the op table and every"
                + " count of what was kept and dropped. Needs no GPU.",
        exitCodeListHeading = ExitCodes.HEADING,
        exitCodeList = {ExitCodes.OK_LINE, ExitCodes.FAILED_LINE, ExitCodes.USAGE_LINE})
final class DemoCommand implements Callable<Integer> {
    private static final List<String> FILES = List.of("h200-app.fltrbuf", "h200-app.ops.jsonl", "h200-app.names.tsv");

    @Option(names = {"-o", "--output"}, paramLabel = "DIR", description = "where the trace and summary go (default: ${DEFAULT-VALUE})")
    Path dir = Path.of("flagtrace-demo");

    @Mixin
    TableArgs table = new TableArgs();

    private final CliContext context;

    DemoCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        refuseFileInTheWay(dir);
        Files.createDirectories(dir);
        Path input = Files.createTempDirectory("flagtrace-demo");
        try {
            for (String file : FILES) {
                try (InputStream in = DemoCommand.class.getResourceAsStream("/org/flagos/trace/demo/" + file)) {
                    if (in == null) {
                        throw new CaptureFormatException("bundled demo file " + file + " is missing from the jar");
                    }
                    Files.copy(in, input.resolve(file), StandardCopyOption.REPLACE_EXISTING);
                }
            }
            context.out().println("flagtrace demo: replaying a real CUPTI capture from an NVIDIA H200 (cuBLAS SGEMM + ReLU,"
                    + " a CUB sort, copies, a memset)");
            ReplayCommand replay = new ReplayCommand(context);
            replay.capture = input.resolve("h200-app.fltrbuf");
            replay.ops = input.resolve("h200-app.ops.jsonl");
            replay.names = input.resolve("h200-app.names.tsv"); // named: no line about files beside a temporary capture
            replay.deviceProperties = Devices.H200;
            replay.trace = dir.resolve("trace.json");
            replay.summary = dir.resolve("summary.json");
            replay.table = table;
            int code = replay.call();
            context.out().println("open " + replay.trace + " in Perfetto's UI (ui.perfetto.dev) or chrome://tracing to see"
                    + " the timeline; next: " + Launcher.name() + " report " + replay.trace + " -o " + dir.resolve("report.html")
                    + ", or " + Launcher.name() + " replay --help for your own captures");
            return code;
        } finally {
            try (var files = Files.list(input)) { // the bundled copies, whatever happened
                for (Path p : (Iterable<Path>) files::iterator) {
                    Files.deleteIfExists(p);
                }
            }
            Files.deleteIfExists(input);
        }
    }

    /** {@code -o} names a directory (created when missing); a file at it, or at a directory above it, is refused in words. */
    private static void refuseFileInTheWay(Path dir) {
        for (Path p = dir.toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.exists(p)) {
                if (!Files.isDirectory(p)) {
                    throw new CliFailures.CommandFailedException("demo -o " + dir + ": " + p + " is a file, not a directory;"
                            + " give a directory for the trace and summary (it is created if missing), e.g. -o flagtrace-demo");
                }
                return;
            }
        }
    }
}
