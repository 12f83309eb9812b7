package org.flagos.trace.model;

/**
 * Handles for API names in a capture's name table ({@code NAME.names.tsv}), beside the kernel-name
 * pointers. A vendor that names its API calls through its own resolver at run time (MUPTI's
 * {@code GetCallbackName}, MCPTI's {@code ActivityGetApiName}, ROCtracer's {@code
 * roctracer_op_string}) saves each name it resolved under {@code of(domain, id)}, so a replay on a
 * machine without the library names the calls the same. The handles have the top byte {@code
 * 0xFA}, which no user-space pointer has, so they never collide with a kernel name's pointer.
 */
public final class ApiNameHandle {
    private static final long TAG = 0xFAL << 56;

    /** The handle of callback id {@code id} in the vendor's {@code domain} (its API kind or domain number). */
    public static long of(int domain, int id) {
        return TAG | (domain & 0xFFFFL) << 32 | (id & 0xFFFF_FFFFL);
    }

    /** True for a handle made by {@link #of}. */
    public static boolean isApiName(long handle) {
        return (handle & 0xFF00_0000_0000_0000L) == TAG;
    }

    private ApiNameHandle() {
    }
}
