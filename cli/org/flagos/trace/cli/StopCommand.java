package org.flagos.trace.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code flagtrace stop [-d DIR] [PID]}: talks to a running {@code flagtrace run} through its control socket ({@link RunControl}). */
@Command(name = "stop", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, sortOptions = false, sortSynopsis = false, separator = " ",
        header = "Disarm the CUDA processes of a running 'flagtrace run': each closes its window, flushed and handed over.",
        description = "Tells the run (found by -d DIR, or by the run that traces PID) to disarm every armed process, or only process PID: each disables its tracing, flushes CUPTI and hands its window's last buffers over; stop answers once each has. Nothing the process launches after that is in a trace until the next start.",
        exitCodeListHeading = ExitCodes.HEADING,
        exitCodeList = {ExitCodes.OK_LINE, ExitCodes.FAILED_LINE, ExitCodes.USAGE_LINE})
final class StopCommand implements Callable<Integer> {
    @Option(names = {"-d", "--dir"}, paramLabel = "DIR", description = "the run's folder (its -d)")
    Path dir;

    @Parameters(index = "0", arity = "0..1", paramLabel = "PID", description = "a process the run traces (default: all of them)")
    Long pid;

    private final CliContext context;

    StopCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws IOException {
        return RunControl.send("stop", dir, pid, context);
    }
}
