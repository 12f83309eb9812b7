package org.flagos.trace.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.FileSystemException;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.capture.AtomicOutput;
import org.flagos.trace.capture.CaptureFailedException;
import org.flagos.trace.capture.FailureWords;
import org.flagos.trace.ingest.CaptureFormatException;
import org.flagos.trace.journal.MappedFault;
import org.flagos.trace.model.TerminalText;
import org.flagos.trace.model.WorkloadFailedException;
import picocli.CommandLine;
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
            err.println(command + ": " + TerminalText.safe(e.getMessage()) + "; see '" + command + " --help'");
            return ExitCodes.USAGE;
        }
        if (e instanceof CaptureFormatException || e instanceof CaptureFailedException || e instanceof CommandFailedException
                || e instanceof WorkloadFailedException) {
            err.println("flagtrace: error: " + safeLine(e.getMessage()));
        } else if (e instanceof IOException) {
            err.println("flagtrace: error: " + safeLine(io(e)));
        } else if (e instanceof UncheckedIOException) {
            err.println("flagtrace: error: " + safeLine(io(e.getCause())));
        } else if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
            err.println("flagtrace: interrupted");
        } else if (e instanceof OutOfMemoryError || e instanceof StackOverflowError) {
            err.println("flagtrace: error: " + safeLine(FailureWords.of(e)));
        } else if (MappedFault.is(e)) { // a write into a mapped file faulted: SIGBUS, the disk is full
            err.println("flagtrace: error: " + MappedFault.WORDS + "; free some space, or write elsewhere, and run it again");
        } else { // anything else ends the run with one line, never a stack trace nor a class name
            err.println("flagtrace: internal error: " + safeLine(FailureWords.of(e)) + " (please report it with the command line and the input)");
        }
        return ExitCodes.FAILED;
    }

    /**
     * An I/O failure in words, naming the file where the exception names one: the words alone ("no such
     * file or directory", "permission denied") would not say which of a command's files failed.
     */
    private static String io(Throwable e) {
        String words = AtomicOutput.describe(e);
        if (e instanceof FileSystemException f && f.getFile() != null && !words.contains(f.getFile())) {
            return f.getFile() + (f.getOtherFile() == null ? "" : " -> " + f.getOtherFile()) + ": " + words;
        }
        return words;
    }

    /** picocli's complaint about a command line, in one line and in the words of this CLI. */
    static String describe(ParameterException e) {
        CommandLine line = e.getCommandLine();
        if (!(e instanceof UnmatchedArgumentException) && !line.getUnmatchedArguments().isEmpty()) {
            // picocli may find a missing parameter first; the unknown argument is what the user got wrong
            e = new UnmatchedArgumentException(line, line.getUnmatchedArguments());
        }
        if (e instanceof UnmatchedArgumentException u) {
            List<String> unmatched = u.getUnmatched();
            String first = unmatched.isEmpty() ? "?" : unmatched.get(0);
            List<String> near = nearest(first, line);
            String suggestion = near.isEmpty() ? "" : " (did you mean " + String.join(" or ", near) + "?)";
            boolean topLevel = line.getParent() == null && !line.getSubcommands().isEmpty();
            if (u.isUnknownOption() || first.startsWith("-")) {
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

    /** The command's options, or subcommands, within two edits of {@code typed}. */
    private static List<String> nearest(String typed, CommandLine line) {
        List<String> names = new ArrayList<>(line.getSubcommands().keySet());
        for (OptionSpec o : line.getCommandSpec().options()) {
            names.add(o.longestName());
        }
        List<String> near = new ArrayList<>();
        for (String name : names) {
            if (name.length() > 2 && distance(typed, name) <= 2) {
                near.add(name);
            }
        }
        return near;
    }

    /** Edit distance, a swap of two neighbours counting as one edit ({@code --form} is one from {@code --from}). */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            for (int j = 0; j <= b.length(); j++) {
                if (i == 0 || j == 0) {
                    d[i][j] = i + j;
                    continue;
                }
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }

    /**
     * A message as one line a terminal prints as it is: its first line ({@link #oneLine}) with every
     * name from a file in it made safe ({@link TerminalText}).
     */
    static String safeLine(String text) {
        return TerminalText.safe(oneLine(text));
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
