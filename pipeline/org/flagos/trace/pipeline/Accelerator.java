package org.flagos.trace.pipeline;

import java.util.Locale;

/** The accelerator families flagtrace knows; each is given a tracer in the vendor table. */
public enum Accelerator {
    CUDA, METAX, ASCEND, MUSA, DCU, GCU, PPU, NONE;

    /**
     * {@code FLAGOS_ACCELERATOR} when set; otherwise CUDA when the CUDA bindings are on the class
     * path, else NONE.
     */
    public static Accelerator detect() {
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
        try {
            Class.forName("org.bytedeco.cuda.global.cupti", false, Accelerator.class.getClassLoader());
            return CUDA;
        } catch (ClassNotFoundException e) {
            return NONE;
        }
    }
}
