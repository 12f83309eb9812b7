package org.flagos.trace.model;

import java.util.Locale;

/** The accelerator families flagtrace knows; each is given a tracer in the vendor table. */
public enum Accelerator {
    CUDA, METAX, ASCEND, MUSA, DCU, GCU, PPU, NONE;

    /**
     * The accelerator {@code FLAGOS_ACCELERATOR} names, NONE for a value that names none (with a
     * warning), or null when it is unset: then the vendor table probes ({@code Vendors.detect}).
     */
    public static Accelerator fromEnvironment() {
        String chosen = System.getenv("FLAGOS_ACCELERATOR");
        if (chosen != null && !chosen.isBlank()) {
            try {
                return valueOf(chosen.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                Diagnostics.warn("accelerator", "FLAGOS_ACCELERATOR=" + chosen + " is not one of "
                        + java.util.Arrays.toString(values()) + "; profiling without a device tracer");
                return NONE;
            }
        }
        return null;
    }
}
