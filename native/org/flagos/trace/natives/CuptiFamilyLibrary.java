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
 * JavaCPP binding of {@code native/cpp/flagtrace_cupti_family.h}: a CUPTI-shaped vendor activity
 * library (MUPTI, TOPSPTI, MCPTI, PPU's CUPTI) opened by path and bound by its symbol prefix. The
 * JNI library is built with the jar; the vendor library is loaded only when a tracer opens it, so
 * a machine without it gets a clear error string, never a link failure.
 */
@Platform(value = "linux", include = "flagtrace_cupti_family.h", link = "dl")
public final class CuptiFamilyLibrary {
    static {
        Loader.load();
    }

    /** One opened vendor library. */
    @Opaque
    @Name("ft_family")
    public static final class Handle extends Pointer {
        public Handle() {
            super((Pointer) null);
        }

        public Handle(Pointer p) {
            super(p);
        }
    }

    /**
     * What a register call returns when the sink it was given is a null function pointer (JavaCPP's
     * 10 native slots per callback class were taken): nothing was registered.
     */
    public static final int NO_SINK = -1000001;

    /**
     * Receives every completed activity buffer, on the vendor's thread, before the shim frees it. Make
     * one for the whole process, not one per tracer: JavaCPP has 10 native slots per callback class,
     * and an 11th live sink is a null function pointer ({@link #NO_SINK}).
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
         * {@code validSize} bytes of records at {@code buffer}, valid only during the call, completed
         * for the library whose handle's address is {@code library}.
         */
        public native void call(@Cast("int64_t") long library, @Cast("uint8_t*") BytePointer buffer,
                @Cast("int64_t") long validSize);
    }

    /** Opens {@code path} and binds {@code prefix}'s entry points; null with the reason in {@code error}. */
    public static native Handle ft_family_open(String path, String prefix, @Cast("char*") BytePointer error, int errorLength);

    public static native int ft_family_has(Handle library, String suffix);

    public static native int ft_family_register(Handle library, @Cast("int64_t") long bufferBytes, BufferSink sink);

    /** Makes a registered library the active one again; 0, or {@link #NO_SINK} when it has no sink. */
    public static native int ft_family_activate(Handle library);

    public static native int ft_family_enable(Handle library, int kind);

    public static native int ft_family_disable(Handle library, int kind);

    public static native int ft_family_flush_all(Handle library, int flag);

    @Cast("int64_t")
    public static native long ft_family_timestamp(Handle library);

    public static native int ft_family_push(Handle library, int kind, @Cast("int64_t") long id);

    public static native int ft_family_pop(Handle library, int kind, @Cast("int64_t*") LongPointer last);

    @Cast("int64_t")
    public static native long ft_family_dropped(Handle library);

    public static native int ft_family_capture_api_enter(Handle library, int domain);

    public static native int ft_family_take_pairs(Handle library, @Cast("int64_t*") LongPointer out, int maxPairs);

    public static native int ft_family_unsubscribe(Handle library);

    @Cast("const char*")
    public static native BytePointer ft_family_api_name(Handle library, int domainOrKind, int id);

    /**
     * The name of API id {@code id} of activity kind {@code kind} through the library's
     * {@code ActivityGetApiName} alone; null when it has none or it failed. Never call it while a
     * buffer callback may run (MCPTI's resolver can deadlock there).
     */
    @Cast("const char*")
    public static native BytePointer ft_family_activity_api_name(Handle library, int kind, int id);

    /** Calls {@code int64_t symbol(int64_t)} in the library; -1 when it has no such symbol. */
    @Cast("int64_t")
    public static native long ft_family_invoke(Handle library, String symbol, @Cast("int64_t") long argument);

    @Cast("int64_t")
    public static native long ft_family_buffers_in_flight(Handle library);

    @Cast("int64_t")
    public static native long ft_family_allocation_failures(Handle library);

    public static native void ft_family_detach(Handle library);

    private CuptiFamilyLibrary() {
    }
}
