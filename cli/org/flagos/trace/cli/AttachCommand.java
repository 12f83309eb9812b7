package org.flagos.trace.cli;

import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code flagtrace attach PID}: arms (or stops) a session inside a running Java program, through the JDK's Attach API. */
@Command(name = "attach", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, sortOptions = false, sortSynopsis = false, separator = " ",
        header = "Trace a running Java program: arm a session inside it, or stop the one armed.",
        description = "Loads flagtrace's agent into the JVM with process id PID (the JDK's Attach API: the same user, a Java"
                + " 17 or later JVM). The session runs inside the program with no change to it, as"
                + " 'java -javaagent:flagtrace.jar=trace=PATH,duration=SECONDS ...' would arm it at launch, and stops after"
                + " --duration, at 'attach PID --stop', or when the program exits. The agent's lines (where the trace went)"
                + " are on the program's standard error.",
        exitCodeListHeading = ExitCodes.HEADING,
        exitCodeList = {ExitCodes.OK_LINE, ExitCodes.FAILED_LINE, ExitCodes.USAGE_LINE})
final class AttachCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PID", description = "the process id of a running JVM")
    long pid;

    @Option(names = "-o", paramLabel = "TRACE", description = "the trace to write (its suffix picks the format); default"
            + " flagtrace-PID.json in the program's working directory")
    Path trace;

    @Option(names = "--journal", paramLabel = "DIR", description = "journal the capture there as well")
    Path journal;

    @Option(names = "--delay", paramLabel = "SECONDS", description = "arm that long after attaching")
    Double delay;

    @Option(names = "--duration", paramLabel = "SECONDS", description = "stop that long after arming")
    Double duration;

    @Option(names = "--stop", description = "stop the session the agent armed in PID and write its trace")
    boolean stop;

    @Option(names = "--agent-jar", paramLabel = "JAR", description = "the jar to load as the agent (default: flagtrace's own,"
            + " target/flagtrace.jar)")
    Path agentJar;

    private final CliContext context;

    AttachCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws IOException {
        String options = AgentJar.checked(options(), pid);
        if (pid == ProcessHandle.current().pid()) {
            throw new UsageException("PID " + pid + " is this flagtrace itself");
        }
        if (ProcessHandle.of(pid).isEmpty()) {
            throw new UsageException("no process " + pid);
        }
        Path jar = AgentJar.of(agentJar);
        VirtualMachine vm;
        try {
            vm = VirtualMachine.attach(Long.toString(pid));
        } catch (AttachNotSupportedException e) {
            context.err().println("flagtrace attach: cannot attach to " + pid + ": " + e.getMessage()
                    + " (a JVM of this user, Java 17 or later, not started with -XX:+DisableAttachMechanism?)");
            return ExitCodes.FAILED;
        }
        try {
            vm.loadAgent(jar.toString(), options);
        } catch (com.sun.tools.attach.AgentLoadException | com.sun.tools.attach.AgentInitializationException e) {
            context.err().println("flagtrace attach: " + pid + " did not load the agent from " + jar + ": " + e.getMessage());
            return ExitCodes.FAILED;
        } finally {
            vm.detach();
        }
        context.out().println(stop ? "flagtrace: asked " + pid + " to stop its session; the agent's line on its standard error says where the trace went"
                : "flagtrace: armed " + pid + (delay != null ? " in " + delay + " s" : "") + ", tracing to "
                + (trace != null ? trace.toAbsolutePath() : "flagtrace-" + pid + ".json in its working directory")
                + (duration != null ? " for " + duration + " s" : "; stop with '" + Launcher.name() + " attach " + pid + " --stop'"));
        return ExitCodes.OK;
    }

    /** The agent's option string; paths made absolute here, since the program's working directory may differ. */
    private String options() {
        List<String> parts = new ArrayList<>();
        if (stop) {
            if (trace != null || journal != null || delay != null || duration != null) {
                throw new UsageException("--stop takes no other option: the running session keeps its own");
            }
            return "stop";
        }
        if (trace != null) {
            OutputPaths.checkTraceName("-o", trace); // as record and replay refuse -o x.txt
            OutputPaths.checkWritable(java.util.Map.of("-o", trace));
            parts.add("trace=" + plain("-o", trace.toAbsolutePath()));
        }
        if (journal != null) {
            parts.add("journal=" + plain("--journal", journal.toAbsolutePath()));
        }
        if (delay != null) {
            parts.add("delay=" + delay);
        }
        if (duration != null) {
            parts.add("duration=" + duration);
        }
        return String.join(",", parts);
    }

    /** A path the option string can carry: no comma (the separator). */
    private static String plain(String option, Path path) {
        String s = path.toString();
        if (s.indexOf(',') >= 0) {
            throw new UsageException(option + " " + s + ": a path with a comma cannot be handed to the agent");
        }
        return s;
    }
}
