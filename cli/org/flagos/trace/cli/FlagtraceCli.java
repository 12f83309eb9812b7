package org.flagos.trace.cli;

import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code flagtrace} command line (picocli): one subcommand per job, {@code --help} and {@code
 * --version} on each, the exit codes of {@link ExitCodes} everywhere. Never touches the network. A
 * failure ends the run with one line on stderr, never a stack trace.
 */
@Command(name = "flagtrace", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        sortOptions = false, sortSynopsis = false, separator = " ", synopsisSubcommandLabel = "COMMAND",
        description = "GPU vendors' activity records to a torch-compatible Chrome trace and an op summary, replayed"
                + " from a capture or a journal, or recorded live.",
        commandListHeading = "%nCommands:%n",
        exitCodeListHeading = ExitCodes.HEADING,
        exitCodeList = {ExitCodes.OK_LINE, ExitCodes.FAILED_LINE, ExitCodes.USAGE_LINE, ExitCodes.TRUNCATED_LINE},
        footer = {"", "Run '" + Launcher.IN_HELP + " COMMAND --help' for a command's options. The CLI never touches the network."})
public final class FlagtraceCli implements Callable<Integer> {
    /** Columns of the help text: fixed, so that it reads the same everywhere (README, terminals, tests). */
    static final int USAGE_WIDTH = 100;

    @Spec
    CommandSpec spec;

    private final CliContext context;
    /** Where {@code record} gets its tracer and workloads: the vendors', unless a test says otherwise. */
    private RecordCommand.Live live = RecordCommand.Live.VENDORS;

    FlagtraceCli(PrintStream out, PrintStream err) {
        this(CliContext.of(out, err));
    }

    FlagtraceCli(CliContext context) {
        this.context = context;
    }

    /** This CLI with {@code record} taking its tracer and workloads from {@code live} (tests without a GPU). */
    FlagtraceCli withLive(RecordCommand.Live live) {
        this.live = live;
        return this;
    }

    public static void main(String[] args) {
        Launcher.sanitize();
        System.exit(new FlagtraceCli(System.out, System.err).run(args));
    }

    /** Runs one command line; returns its exit code. */
    int run(String... args) {
        CommandLine line = commandLine(args.length > 0 ? args[0] : null);
        try {
            return line.execute(args);
        } catch (Throwable e) { // an Error picocli passed on: still one line
            return CliFailures.report(e, "flagtrace", context.err());
        } finally {
            line.getOut().flush();
            line.getErr().flush();
        }
    }

    /** The whole command tree, printing where {@link #context} says. */
    CommandLine commandLine() {
        return commandLine(null);
    }

    /**
     * The command tree; when {@code first} names a command, only that one is built: picocli reads
     * every command's annotations by reflection, and a cold start should pay for one.
     */
    private CommandLine commandLine(String first) {
        CommandLine line = new CommandLine(this);
        Object only = first == null ? null : command(first);
        if (only != null) {
            line.addSubcommand(only);
        } else {
            for (String name : COMMANDS) {
                line.addSubcommand(command(name));
            }
            line.addSubcommand(new CommandLine.HelpCommand());
        }
        line.setCommandName(Launcher.name()); // usage lines and hints name the command as the user runs it
        line.setUsageHelpWidth(USAGE_WIDTH);
        // Colours only for a person at a terminal: help in a pipe, a file or the docs is plain text.
        line.setColorScheme(CommandLine.Help.defaultColorScheme(
                context.terminal() ? CommandLine.Help.Ansi.AUTO : CommandLine.Help.Ansi.OFF));
        // Set after the subcommands are added: picocli hands these down to every one of them.
        line.setOut(new PrintWriter(new OutputStreamWriter(context.out(), StandardCharsets.UTF_8), true));
        line.setErr(new PrintWriter(new OutputStreamWriter(context.err(), StandardCharsets.UTF_8), true));
        line.setParameterExceptionHandler(this::usageError);
        line.setExecutionExceptionHandler((e, failed, parsed) ->
                CliFailures.report(e, failed.getCommandSpec().qualifiedName(), context.err()));
        return line;
    }

    private static final String[] COMMANDS = {"demo", "replay", "record", "summary", "report", "merge", "tables", "analyze", "diff", "run", "start", "stop", "attach"};

    private Object command(String name) {
        switch (name) {
            case "demo": return new DemoCommand(context);
            case "replay": return new ReplayCommand(context);
            case "record": return new RecordCommand(context, live);
            case "summary": return new SummaryCommand(context);
            case "report": return new ReportCommand(context);
            case "merge": return new MergeCommand(context);
            case "tables": return new TablesCommand(context);
            case "analyze": return new AnalyzeCommand(context);
            case "diff": return new DiffCommand(context);
            case "run": return new RunCommand(context);
            case "start": return new StartCommand(context);
            case "stop": return new StopCommand(context);
            case "attach": return new AttachCommand(context);
            default: return null;
        }
    }

    /** No command given: what there is, on stderr. */
    @Override
    public Integer call() {
        context.err().println("flagtrace: name a command; '" + Launcher.name() + " demo' shows what it does on a bundled capture");
        spec.commandLine().usage(spec.commandLine().getErr());
        return ExitCodes.USAGE;
    }

    private int usageError(ParameterException e, String[] args) {
        String command = e.getCommandLine().getCommandSpec().qualifiedName();
        context.err().println(command + ": " + org.flagos.trace.model.TerminalText.safe(CliFailures.describe(e)) + "; see '" + command + " --help'");
        return ExitCodes.USAGE;
    }
}
