package org.flagos.trace.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.capture.AtomicOutput;
import org.flagos.trace.capture.CaptureFailedException;
import org.flagos.trace.ingest.CaptureFormatException;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/** Turns what went wrong into one line on stderr and an exit code ({@link ExitCodes}). */
final class CliFailures {
    private CliFailures() {
    }

    /** Prints {@code e} as one line; returns the exit code it means. */
    static int report(Throwable e, String command, PrintStream err) {
        if (e instanceof UsageException) {
            err.println(command + ": " + e.getMessage() + "; see '" + command + " --help'");
            return ExitCodes.USAGE;
        }
        if (e instanceof CaptureFormatException || e instanceof CaptureFailedException || e instanceof CommandFailedException) {
            err.println("flagtrace: error: " + oneLine(e.getMessage()));
        } else if (e instanceof IOException) {
            err.println("flagtrace: error: " + oneLine(AtomicOutput.describe(e)));
        } else if (e instanceof UncheckedIOException) {
            err.println("flagtrace: error: " + oneLine(AtomicOutput.describe(e.getCause())));
        } else if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
            err.println("flagtrace: interrupted");
        } else if (e instanceof OutOfMemoryError) {
            err.println("flagtrace: error: out of memory (" + e.getMessage() + "); give the JVM more heap,"
                    + " e.g. FLAGTRACE_JAVA_OPTS=-Xmx8g, or split the capture");
        } else if (e instanceof StackOverflowError) {
            err.println("flagtrace: error: stack overflow while processing the input (a pathological name or nesting?)");
        } else { // anything else ends the run with one line, never a stack trace
            err.println("flagtrace: internal error: " + oneLine(e.toString()) + " (please report it with the input)");
        }
        return ExitCodes.FAILED;
    }

    /** picocli's complaint about a command line, in one line and in the words of this CLI. */
    static String describe(ParameterException e) {
        if (e instanceof UnmatchedArgumentException u) {
            List<String> unmatched = u.getUnmatched();
            String first = unmatched.isEmpty() ? "?" : unmatched.get(0);
            String suggestion = u.getSuggestions().isEmpty() ? "" : " (did you mean " + String.join(" or ", u.getSuggestions()) + "?)";
            boolean topLevel = e.getCommandLine().getParent() == null && !e.getCommandLine().getSubcommands().isEmpty();
            if (u.isUnknownOption()) {
                return "unknown option '" + first + "'" + suggestion;
            }
            if (topLevel) {
                return "unknown command '" + first + "'" + suggestion + "; commands: "
                        + String.join(", ", e.getCommandLine().getSubcommands().keySet());
            }
            return "unexpected argument '" + first + "'" + suggestion;
        }
        if (e instanceof MissingParameterException m) {
            List<String> missing = new ArrayList<>();
            for (ArgSpec arg : m.getMissing()) {
                missing.add(arg instanceof OptionSpec o ? o.shortestName() + " " + o.paramLabel() : arg.paramLabel());
            }
            return "missing " + String.join(" and ", missing);
        }
        return oneLine(e.getMessage());
    }

    static String oneLine(String text) {
        if (text == null) {
            return "";
        }
        int nl = text.indexOf('\n');
        return (nl < 0 ? text : text.substring(0, nl)).strip();
    }

    /** A failure whose message already says what happened and what to do: printed as it is, exit 1. */
    static final class CommandFailedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        CommandFailedException(String message) {
            super(message);
        }
    }
}
