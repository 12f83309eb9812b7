package org.flagos.trace.model;

/**
 * What a record read from a vendor buffer or a file may hold before anything trusts it: a value
 * that later indexes or sizes memory (a device id picks a trace row, a span becomes a duration) is
 * checked here first, and a record outside these limits is counted as invalid, never published.
 * Every decoder applies the same limits, so they hold whatever the vendor.
 */
public final class RecordLimits {
    /** Device ids index per-device rows: no process sees more devices than this. */
    public static final int MAX_DEVICES = 1024;
    /** One day: no kernel, copy or API call in a capture runs longer. */
    public static final long MAX_SPAN_NS = 86_400_000_000_000L;

    /** Null when {@code [start, end]} is a plausible activity interval, else why not. */
    public static String interval(long startNs, long endNs) {
        if (startNs <= 0) {
            return "start " + startNs + " is not a timestamp";
        }
        if (endNs < startNs) {
            return "ends before it starts [" + startNs + ", " + endNs + "]";
        }
        if (endNs - startNs > MAX_SPAN_NS) {
            return "lasts " + (endNs - startNs) + " ns, more than a day";
        }
        return null;
    }

    /** Null when {@code device} can be a device id, else why not. */
    public static String device(long device) {
        return device >= 0 && device < MAX_DEVICES ? null
                : "device id " + Long.toUnsignedString(device & 0xFFFF_FFFFL) + " is not below " + MAX_DEVICES;
    }

    /**
     * True when {@code [startNs, endNs]} is a plausible interval and {@code device} a device id; else
     * the record is counted in {@code stats} as invalid ("WHAT record: why") and false comes back.
     */
    public static boolean admit(long startNs, long endNs, long device, String what, DecodeStats stats) {
        String why = interval(startNs, endNs);
        if (why == null) {
            why = device(device);
        }
        if (why != null) {
            stats.invalid(what + " record: " + why);
            return false;
        }
        return true;
    }

    private RecordLimits() {
    }
}
