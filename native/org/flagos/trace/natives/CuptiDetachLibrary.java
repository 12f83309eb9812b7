package org.flagos.trace.natives;

import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.annotation.Cast;
import org.bytedeco.javacpp.annotation.Platform;

/**
 * JavaCPP binding of {@code native/cpp/flagtrace_cupti_detach.h}: detaches NVIDIA's CUPTI
 * ({@code cuptiFinalize}) from a C callback at the exit of the next runtime API call, the way
 * {@code cupti_activity.h} recommends, without a Java upcall inside CUPTI's callback dispatch.
 * CUPTI's entry points are looked up in the CUPTI the process already loaded.
 */
@Platform(value = "linux", include = "flagtrace_cupti_detach.h", link = "dl")
public final class CuptiDetachLibrary {
    static {
        Loader.load();
    }

    /**
     * Arms the detach on the CUPTI loaded from {@code path} (empty: any loaded one): 0 when armed,
     * else nonzero with the reason written to {@code error}.
     */
    public static native int ft_cupti_detach_arm(String path, @Cast("char*") BytePointer error, int errorLength);

    /** cuptiFinalize's status once it ran (0: detached), or -2 when nothing finalized within {@code timeoutMs}. */
    public static native int ft_cupti_detach_await(@Cast("int64_t") long timeoutMs);

    private CuptiDetachLibrary() {
    }
}
