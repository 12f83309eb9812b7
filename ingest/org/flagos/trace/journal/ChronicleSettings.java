package org.flagos.trace.journal;

/**
 * The system properties flagtrace sets before any Chronicle class loads (each only when the user has
 * not set it): no usage analytics (the artifact is also left out of the build), no disk-space
 * monitor thread, and resources released on the closing thread rather than a background one, so
 * that no Chronicle thread outlives a journal. Chronicle reads these once, in static initializers:
 * every journal entry point calls {@link #apply()} first.
 */
public final class ChronicleSettings {
    /** Chronicle's switch for its usage analytics. */
    public static final String ANALYTICS_DISABLE = "chronicle.analytics.disable";
    static final String DISK_MONITOR_DISABLE = "chronicle.disk.monitor.disable";
    static final String BACKGROUND_RELEASER = "background.releaser";

    static {
        setIfAbsent(ANALYTICS_DISABLE, "true");
        setIfAbsent(DISK_MONITOR_DISABLE, "true");
        setIfAbsent(BACKGROUND_RELEASER, "false");
    }

    /** Applies the settings (idempotent; the work is done once, when this class initializes). */
    public static void apply() {
    }

    private static void setIfAbsent(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    private ChronicleSettings() {
    }
}
