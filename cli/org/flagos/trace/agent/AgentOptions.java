package org.flagos.trace.agent;

import java.nio.file.Path;
import java.util.Locale;

/**
 * What an agent's option string asks for: {@code key=value} pairs separated by commas (the form
 * {@code -javaagent:JAR=OPTIONS} takes), every key at most once.
 *
 * <ul>
 *   <li>{@code trace=PATH}: the trace to write (its suffix picks the format, as {@code -o} does); by
 *       default {@code flagtrace-PID.json} in the program's working directory.</li>
 *   <li>{@code dir=DIR}: the trace is {@code DIR/flagtrace-PID.json} (one per process of a tree, as
 *       {@code flagtrace run} arms them); not with {@code trace}.</li>
 *   <li>{@code journal=DIR}: journal the capture there as well.</li>
 *   <li>{@code delay=SECONDS}: arm that long after the agent loads.</li>
 *   <li>{@code duration=SECONDS}: stop that long after arming; without it the session stops when
 *       the program exits or at {@code stop}.</li>
 *   <li>{@code stop}: stop the session armed earlier (from {@code flagtrace attach PID --stop}).</li>
 * </ul>
 *
 * @param trace      the trace path, resolved against the program's working directory
 * @param journal    the journal directory, or null
 * @param delayNs    nanoseconds before arming
 * @param durationNs nanoseconds armed, or 0 for until exit or stop
 * @param stop       true when the string asks to stop the running session
 */
public record AgentOptions(Path trace, Path journal, long delayNs, long durationNs, boolean stop) {
    /** The longest delay or duration taken: a day. */
    static final long MAX_SECONDS = 86_400;

    /**
     * Parses an option string ({@code null} or empty: every default) for the process {@code pid}.
     *
     * @throws IllegalArgumentException with one line naming the option at fault
     */
    public static AgentOptions parse(String options, long pid) {
        Path trace = null;
        Path dir = null;
        Path journal = null;
        long delayNs = -1;
        long durationNs = -1;
        boolean stop = false;
        if (options != null && !options.isBlank()) {
            for (String part : options.split(",", -1)) {
                int eq = part.indexOf('=');
                String key = (eq < 0 ? part : part.substring(0, eq)).trim().toLowerCase(Locale.ROOT);
                String value = eq < 0 ? null : part.substring(eq + 1).trim();
                switch (key) {
                    case "trace" -> trace = once(trace, "trace", path(key, value));
                    case "dir" -> dir = once(dir, "dir", path(key, value));
                    case "journal" -> journal = once(journal, "journal", path(key, value));
                    case "delay" -> delayNs = onceNs(delayNs, key, seconds(key, value));
                    case "duration" -> durationNs = onceNs(durationNs, key, seconds(key, value));
                    case "stop" -> {
                        if (value != null) {
                            throw new IllegalArgumentException("'stop' takes no value");
                        }
                        stop = true;
                    }
                    default -> throw new IllegalArgumentException("unknown option '" + key
                            + "' (known: trace=PATH, dir=DIR, journal=DIR, delay=SECONDS, duration=SECONDS, stop)");
                }
            }
        }
        if (trace != null && dir != null) {
            throw new IllegalArgumentException("'trace' and 'dir' both name the trace: give one");
        }
        if (dir != null) {
            trace = dir.resolve("flagtrace-" + pid + ".json");
        }
        if (stop && (trace != null || journal != null || delayNs >= 0 || durationNs >= 0)) {
            throw new IllegalArgumentException("'stop' takes no other option: the running session keeps its own");
        }
        if (durationNs == 0) {
            throw new IllegalArgumentException("duration=0 would record nothing; leave it out to record until the program exits");
        }
        return new AgentOptions(trace != null ? trace.toAbsolutePath() : Path.of("flagtrace-" + pid + ".json").toAbsolutePath(),
                journal == null ? null : journal.toAbsolutePath(), Math.max(0, delayNs), Math.max(0, durationNs), stop);
    }

    private static <T> T once(T previous, String key, T value) {
        if (previous != null) {
            throw new IllegalArgumentException("'" + key + "' given twice");
        }
        return value;
    }

    private static long onceNs(long previous, String key, long value) {
        if (previous >= 0) {
            throw new IllegalArgumentException("'" + key + "' given twice");
        }
        return value;
    }

    private static Path path(String key, String value) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("'" + key + "' needs a path: " + key + "=PATH");
        }
        try {
            return Path.of(value);
        } catch (java.nio.file.InvalidPathException e) {
            throw new IllegalArgumentException("'" + key + "': not a path: " + e.getMessage());
        }
    }

    private static long seconds(String key, String value) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("'" + key + "' needs seconds: " + key + "=SECONDS");
        }
        double s;
        try {
            s = Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + key + "=" + value + "': not a number of seconds");
        }
        if (!(s >= 0 && s <= MAX_SECONDS)) {
            throw new IllegalArgumentException("'" + key + "=" + value + "': seconds from 0 to " + MAX_SECONDS);
        }
        return Math.round(s * 1e9);
    }
}
