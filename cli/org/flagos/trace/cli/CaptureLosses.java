package org.flagos.trace.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * What {@code flagtrace run} lost of the processes that reached its socket: streams that left no capture (they ended
 * before their hello, or were damaged before any window), streams cut short or damaged after a window opened (still open
 * long after the program exited, or broken; its capture holds what came before), and windows whose capture did not
 * become a trace. {@link InjectedRun#finish} counts them; run
 * says so in one line and does not exit 0 over them.
 */
record CaptureLosses(int withoutCapture, int damaged, int notReplayed) {
    static final CaptureLosses NONE = new CaptureLosses(0, 0, 0);

    boolean any() {
        return withoutCapture + damaged + notReplayed > 0;
    }

    CaptureLosses plus(CaptureLosses other) {
        return new CaptureLosses(withoutCapture + other.withoutCapture, damaged + other.damaged, notReplayed + other.notReplayed);
    }

    /**
     * Run's exit code: the program's own when it is not 0 (its failure comes first, the line still counts the losses);
     * {@link ExitCodes#TRUNCATED} when the program exited 0 but a capture is missing or cut short; else 0.
     */
    int exitCode(int programExit) {
        return programExit == 0 && any() ? ExitCodes.TRUNCATED : programExit;
    }

    /** The line run ends with when something was lost, or null. */
    String line(int programExit) {
        if (!any()) {
            return null;
        }
        List<String> parts = new ArrayList<>();
        if (withoutCapture > 0) {
            parts.add(withoutCapture + (withoutCapture == 1 ? " process" : " processes") + " reached run but left no capture");
        }
        if (damaged > 0) {
            parts.add(damaged == 1 ? "1 stream was cut short or damaged (its trace holds what came before)"
                    : damaged + " streams were cut short or damaged (their traces hold what came before)");
        }
        if (notReplayed > 0) {
            parts.add(notReplayed == 1 ? "1 window's capture did not become a trace"
                    : notReplayed + " windows' captures did not become traces");
        }
        int exit = exitCode(programExit);
        return "flagtrace run: " + String.join(", ", parts) + "; exit " + exit
                + (exit == programExit ? " (the program's own)" : " (the program exited 0)");
    }
}
