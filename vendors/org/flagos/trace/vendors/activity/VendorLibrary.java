package org.flagos.trace.vendors.activity;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;

/**
 * A vendor library opened through flagtrace's shim: the first of its candidate paths that loads,
 * or one sentence saying why none did. A library is never linked, so a missing one is that
 * sentence and CPU profiling continues.
 *
 * @param <H> the shim's handle type
 */
public final class VendorLibrary<H extends Pointer> {
    /** The environment variable that points a tracer at a non-default library (as the seed's shims do). */
    public static final String LIBRARY_ENV = "FLAGOS_TRACER_LIBRARY";
    /** The system property that does the same, for a JVM that cannot set its environment. */
    public static final String LIBRARY_PROPERTY = "flagtrace.tracer.library";
    private static final int ERROR_BYTES = 1024;

    /** A shim's open call: a handle, or null (or a null pointer) with the reason written into {@code error}. */
    @FunctionalInterface
    public interface Opener<H extends Pointer> {
        H open(String path, BytePointer error, int errorLength);
    }

    private final H handle;
    private final String path;
    private final String failure;

    private VendorLibrary(H handle, String path, String failure) {
        this.handle = handle;
        this.path = path;
        this.failure = failure;
    }

    /**
     * What to try: {@code explicit} when given, else {@value #LIBRARY_PROPERTY}, else
     * {@value #LIBRARY_ENV}, else {@code defaults} in order.
     */
    public static List<String> candidates(String explicit, List<String> defaults) {
        if (explicit != null) {
            return List.of(explicit);
        }
        String property = System.getProperty(LIBRARY_PROPERTY);
        if (property != null && !property.isBlank()) {
            return List.of(property);
        }
        String env = System.getenv(LIBRARY_ENV);
        return env != null && !env.isBlank() ? List.of(env) : defaults;
    }

    /**
     * Opens the first of {@code candidates} that loads.
     *
     * @param label the library's name in the failure sentence ({@code mspti}, {@code ROCtracer})
     */
    public static <H extends Pointer> VendorLibrary<H> open(String label, List<String> candidates, Opener<H> opener) {
        List<String> reasons = new ArrayList<>();
        try {
            BytePointer error = new BytePointer(ERROR_BYTES);
            for (String candidate : candidates) {
                H opened = opener.open(candidate, error, ERROR_BYTES);
                if (opened != null && !opened.isNull()) {
                    return new VendorLibrary<>(opened, candidate, "");
                }
                reasons.add(cString(error));
            }
        } catch (LinkageError e) { // JavaCPP or the shim's JNI library missing
            return new VendorLibrary<>(null, String.join(", ", candidates),
                    "flagtrace's native shim could not be loaded (" + e + ")");
        }
        String tried = String.join(", ", candidates);
        return new VendorLibrary<>(null, tried, label + " library " + tried + " could not be loaded: "
                + String.join("; ", reasons));
    }

    /**
     * The NUL-terminated string a shim wrote into {@code buffer} (its error buffer): JavaCPP's
     * {@code getString} reads a buffer allocated with a size up to that size, so the bytes after the
     * NUL (an earlier, longer reason, or whatever the allocation held) would follow the reason.
     */
    public static String cString(BytePointer buffer) {
        String all = buffer.getString(StandardCharsets.UTF_8);
        int end = all.indexOf('\0');
        return end < 0 ? all : all.substring(0, end);
    }

    /** The opened library; null when none loaded. */
    public H handle() {
        return handle;
    }

    /** The path that loaded, or every path tried when none did. */
    public String path() {
        return path;
    }

    /** Why no candidate loaded; empty when one did. */
    public String failure() {
        return failure;
    }
}
