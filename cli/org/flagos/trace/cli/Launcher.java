package org.flagos.trace.cli;

import java.util.regex.Pattern;

/**
 * The name the user runs the CLI by, which every hint that tells a command to run begins with.
 * {@code ./flagtrace} sets {@value #PROPERTY} to how it was started ({@code ./flagtrace}, a path, or
 * {@code flagtrace} when that name on the PATH is the launcher); without it the hints say
 * {@value #DEFAULT}, as the README does.
 */
final class Launcher {
    /** The system property the launcher passes its name in. */
    static final String PROPERTY = "flagtrace.launcher";
    /** The name without a launcher: the README's. */
    static final String DEFAULT = "./flagtrace";
    /** The name in picocli's annotation texts, which interpolate {@code ${sys:...}} when help is printed. */
    static final String IN_HELP = "${sys:" + PROPERTY + ":-" + DEFAULT + "}";
    /** What can be pasted into a shell as is, and read by picocli's help formatting as text (no '%', no '$'). */
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./+@-]+");

    private Launcher() {
    }

    /** The launcher's name, as hints print it. */
    static String name() {
        return of(System.getProperty(PROPERTY));
    }

    /** {@code value} when it is a plain name or path, else {@value #DEFAULT}. */
    static String of(String value) {
        return value != null && PLAIN.matcher(value).matches() ? value : DEFAULT;
    }

    /** Drops a launcher name that is not plain, so that the help texts fall back to {@value #DEFAULT} too. */
    static void sanitize() {
        String value = System.getProperty(PROPERTY);
        if (value != null && !of(value).equals(value)) {
            System.clearProperty(PROPERTY);
        }
    }
}
