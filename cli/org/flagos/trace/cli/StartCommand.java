package org.flagos.trace.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code flagtrace start [-d DIR] [PID]}: talks to a running {@code flagtrace run} through its control socket ({@link RunControl}). */
@Command(name = "start", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, sortOptions = false, sortSynopsis = false, separator = " ",
        header = "Arm the CUDA processes of a running 'flagtrace run --start-later': each opens a window, traced until stop.",
        description = "Tells the run (found by -d DIR, or by the run that traces PID) to arm every process it traces, and those that connect later, or only process PID. It answers once each has opened its window: everything the process launches from then on is in that window's trace, DIR/flagtrace-PID-wN.json, written when the run ends. A process not yet connected (it connects when it initialises CUDA) is waited for 10 s when named by PID.",
        exitCodeListHeading = ExitCodes.HEADING,
        exitCodeList = {ExitCodes.OK_LINE, ExitCodes.FAILED_LINE, ExitCodes.USAGE_LINE})
final class StartCommand implements Callable<Integer> {
    @Option(names = {"-d", "--dir"}, paramLabel = "DIR", description = "the run's folder (its -d)")
    Path dir;

    @Parameters(index = "0", arity = "0..1", paramLabel = "PID", description = "a process the run traces (default: all of them)")
    Long pid;

    private final CliContext context;

    StartCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws IOException {
        return RunControl.send("start", dir, pid, context);
    }
}
