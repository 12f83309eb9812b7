package org.flagos.trace.model;

/**
 * What a failed native library load says, in the words of the library that was missing. JavaCPP's
 * {@code Loader.load} throws "no jnicudart in java.library.path", which names its own JNI bridge;
 * the reason sits in the cause it chains, the dynamic linker's line "PATH/libjnicudart.so:
 * libcuda.so.1: cannot open shared object file: No such file or directory". This keeps the deepest
 * {@link UnsatisfiedLinkError} of the chain and, where the linker names a library it could not
 * open, starts the line at that library.
 */
public final class NativeLoadFailure {
    private static final String CANNOT_OPEN = ": cannot open shared object file";

    private NativeLoadFailure() {
    }

    /** One line: the library that failed and why, e.g. "libcuda.so.1: cannot open shared object file: No such file or directory". */
    public static String describe(Throwable e) {
        Throwable root = e;
        Throwable t = e;
        for (int depth = 0; t != null && depth < 64; depth++, t = t.getCause()) { // bounded: a chain may loop
            if (t instanceof UnsatisfiedLinkError) {
                root = t;
            }
        }
        String message = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        int nl = message.indexOf('\n');
        message = nl < 0 ? message : message.substring(0, nl);
        int cannot = message.indexOf(CANNOT_OPEN);
        if (cannot > 0) {
            int from = message.lastIndexOf(": ", cannot - 1);
            return message.substring(from < 0 ? 0 : from + 2);
        }
        return message;
    }

    /** The library a load failed on ("libcuda.so.1"), or null when the linker's words name none. */
    public static String library(Throwable e) {
        String line = describe(e);
        int cannot = line.indexOf(CANNOT_OPEN);
        return cannot > 0 ? line.substring(0, cannot) : null;
    }
}
