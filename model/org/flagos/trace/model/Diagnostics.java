package org.flagos.trace.model;

import java.util.Locale;

/**
 * flagtrace's setup diagnostics, switched by one boolean environment variable, {@code FLAGOS_TRACE}
 * (1/true/on/yes or 0/false/off/no, any case; anything else warns once and reads as off). Two
 * kinds of warning are never gated, because silence is what makes them costly: a missing
 * linked-activity resolver and a record layout/version mismatch ({@link #warn}).
 */
public final class Diagnostics {
    private static final boolean ENABLED = parse(System.getenv("FLAGOS_TRACE"), System.err);

    /** Parses the switch; unrecognized values warn on {@code warnings} and read as off. */
    static boolean parse(String value, java.io.PrintStream warnings) {
        if (value == null || value.isEmpty()) {
            return false;
        }
        switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "1": case "true": case "on": case "yes":
                return true;
            case "0": case "false": case "off": case "no":
                return false;
            default:
                warnings.println("flagtrace: FLAGOS_TRACE=" + value + " is not a boolean (1/true/on/yes, 0/false/off/no); reading it as off");
                return false;
        }
    }

    public static boolean enabled() {
        return ENABLED;
    }

    /** A setup diagnostic, printed only when FLAGOS_TRACE is on. */
    public static void trace(String component, String message) {
        if (ENABLED) {
            System.err.println("flagtrace[" + component + "]: " + message);
        }
    }

    /** A severe warning, always printed. */
    public static void warn(String component, String message) {
        System.err.println("flagtrace[" + component + "] WARNING: " + message);
    }

    private Diagnostics() {
    }
}
