package org.flagos.trace.natives;

import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.FunctionPointer;
import org.bytedeco.javacpp.LongPointer;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.annotation.Cast;
import org.bytedeco.javacpp.annotation.Name;
import org.bytedeco.javacpp.annotation.Opaque;
import org.bytedeco.javacpp.annotation.Platform;

/**
 * JavaCPP binding of {@code native/cpp/flagtrace_roctracer.h}: AMD's ROCtracer (ROCm, Hygon DCU)
 * opened by path, bound only through the entry points every public release exports (the
 * {@code _expl} pool calls). The JNI library is built with the jar; libroctracer64 is loaded only
 * when a tracer opens it, so a machine without it gets a clear error string, never a link failure.
 * Every status is roctracer's: any non-zero value is an error (positive codes up to rocm-5.2,
 * negative since rocm-5.3).
 */
@Platform(value = "linux", include = "flagtrace_roctracer.h", link = "dl")
public final class RoctracerLibrary {
    static {
        Loader.load();
    }

    /** One opened libroctracer. */
    @Opaque
    @Name("ft_roc")
    public static final class Handle extends Pointer {
        public Handle() {
            super((Pointer) null);
        }

        public Handle(Pointer p) {
            super(p);
        }
    }

    /** What ft_roc_open_pool returns, having opened no pool, when its sink is a null function pointer. */
    public static final int NO_SINK = -1000001;

    /**
     * Receives every completed buffer's records on roctracer's thread: a copy whose dispatch records'
     * {@code kernel_name} point at strings the shim keeps for the process's life. One for the whole
     * process: JavaCPP has 10 native slots per callback class, and an 11th live sink is a null
     * function pointer ({@link #NO_SINK}).
     */
    public static class BufferSink extends FunctionPointer {
        static {
            Loader.load();
        }

        protected BufferSink() {
            allocate();
        }

        private native void allocate();

        /**
         * {@code size} bytes of 64-byte records at {@code records}, valid only during the call, from the
         * library whose handle's address is {@code library}.
         */
        public native void call(@Cast("int64_t") long library, @Cast("uint8_t*") BytePointer records,
                @Cast("int64_t") long size);
    }

    /** Opens {@code path} and binds its entry points; null with the reason in {@code error}. */
    public static native Handle ft_roc_open(String path, @Cast("char*") BytePointer error, int errorLength);

    /** The API version as major * 1000 + minor (4001 for rocm 5.3 and later); -1 when unknown. */
    public static native int ft_roc_version(Handle library);

    /** Opens the session's pool with {@code bufferBytes} per buffer, buffers to {@code sink}. */
    public static native int ft_roc_open_pool(Handle library, @Cast("int64_t") long bufferBytes, BufferSink sink);

    public static native int ft_roc_enable(Handle library, int domain);

    public static native int ft_roc_disable(Handle library, int domain);

    public static native int ft_roc_flush(Handle library);

    /** Closes the pool (delivering what is left) and stops routing buffers to Java. */
    public static native int ft_roc_close_pool(Handle library);

    public static native int ft_roc_push(Handle library, @Cast("int64_t") long id);

    public static native int ft_roc_pop(Handle library, @Cast("int64_t*") LongPointer last);

    /** The kernel name at {@code handle} when the shim interned it (a live dispatch record's), else null. */
    @Cast("const char*")
    public static native BytePointer ft_roc_kernel_name(Handle library, @Cast("int64_t") long handle);

    @Cast("const char*")
    public static native BytePointer ft_roc_op_string(Handle library, int domain, int op, int kind);

    /** roctracer's clock in ns, or -1 when it failed or is not running yet. */
    @Cast("int64_t")
    public static native long ft_roc_timestamp(Handle library);

    /** CLOCK_BOOTTIME in ns (the clock roctracer's reads on Linux), or -1. */
    @Cast("int64_t")
    public static native long ft_roc_boottime();

    @Cast("int64_t")
    public static native long ft_roc_buffers(Handle library);

    @Cast("int64_t")
    public static native long ft_roc_unread_names(Handle library);

    @Cast("int64_t")
    public static native long ft_roc_interned_names(Handle library);

    /** Calls {@code int64_t symbol(int64_t)} in the library; -1 when it has no such symbol. */
    @Cast("int64_t")
    public static native long ft_roc_invoke(Handle library, String symbol, @Cast("int64_t") long argument);

    private RoctracerLibrary() {
    }
}
