package org.flagos.trace.cli;

/**
 * The CLI's exit codes, the same for every command, and the lines its {@code --help} lists them
 * with (picocli's {@code key:description} form).
 */
final class ExitCodes {
    static final int OK = 0;
    static final int FAILED = 1;
    static final int USAGE = 2;
    static final int TRUNCATED = 3;

    static final String HEADING = "%nExit codes:%n";
    static final String OK_LINE = "0:done";
    static final String FAILED_LINE = "1:bad input or a failure: one line on stderr, no output file left behind";
    static final String USAGE_LINE = "2:usage: an unknown option, a bad value, an output path that is an input";
    static final String TRUNCATED_LINE = "3:the input was cut short or damaged: the output holds everything before";

    private ExitCodes() {
    }
}
