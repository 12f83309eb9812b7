package org.flagos.trace.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A program {@code run} could not start: why, in words, and the exit code a shell gives it (127 when
 * it is not found, 126 when it cannot be executed), so a script that checks {@code run}'s code reads
 * the same as without flagtrace.
 */
final class CommandNotStarted {
    static final int NOT_FOUND = 127;
    static final int NOT_EXECUTABLE = 126;
    /** The JDK's words for a failed start: {@code Cannot run program "x": error=2, No such file or directory}. */
    private static final Pattern ERRNO = Pattern.compile("error=(\\d+), (.+)$");

    private CommandNotStarted() {
    }

    static int exitCode(IOException e) {
        Matcher m = errno(e);
        if (m == null) {
            return ExitCodes.FAILED;
        }
        int errno = Integer.parseInt(m.group(1));
        return errno == 2 || errno == 20 ? NOT_FOUND : errno == 13 || errno == 8 ? NOT_EXECUTABLE : ExitCodes.FAILED;
    }

    static String why(IOException e) {
        Matcher m = errno(e);
        if (m == null) {
            return "it could not be started";
        }
        return m.group(2).toLowerCase(Locale.ROOT);
    }

    private static Matcher errno(IOException e) {
        String message = e.getMessage();
        if (message == null) {
            return null;
        }
        Matcher m = ERRNO.matcher(message);
        return m.find() && m.group(1).length() < 6 ? m : null;
    }

    /**
     * Removes a run folder {@code run} made itself when nothing but its own copy of the injected
     * libraries is in it: a program that never started leaves no folder behind.
     */
    static void removeEmptyRun(Path dir) throws IOException {
        List<Path> all;
        try (Stream<Path> walk = Files.walk(dir)) {
            all = walk.sorted(Comparator.reverseOrder()).toList();
        }
        Path inject = dir.resolve(InjectedRun.LIBRARY_FOLDER);
        for (Path p : all) {
            if (!p.equals(dir) && !p.startsWith(inject)) {
                return;
            }
        }
        for (Path p : all) {
            Files.deleteIfExists(p);
        }
    }
}
