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
 * JavaCPP binding of {@code native/cpp/flagtrace_mspti.h}: Ascend's {@code libmspti.so} opened by
 * path and bound by its public entry-point names. The JNI library is built with the jar; libmspti is
 * loaded only when a tracer opens it, so a machine without CANN gets a clear error string, never a
 * link failure.
 */
@Platform(value = "linux", include = "flagtrace_mspti.h", link = "dl")
public final class MsptiLibrary {
    static {
        Loader.load();
    }

    /** One opened libmspti. */
    @Opaque
    @Name("ftm_library")
    public static final class Handle extends Pointer {
        public Handle() {
            super((Pointer) null);
        }

        public Handle(Pointer p) {
            super(p);
        }
    }

    /** What ftm_register returns, having registered nothing, when its sink is a null function pointer. */
    public static final int NO_SINK = -1000001;

    /**
     * Receives every completed activity buffer, on MSPTI's thread, before the shim frees it. One for
     * the whole process: JavaCPP has 10 native slots per callback class, and an 11th live sink is a
     * null function pointer ({@link #NO_SINK}).
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

    /** Opens {@code path} and binds MSPTI's entry points; null with the reason in {@code error}. */
    public static native Handle ftm_open(String path, @Cast("char*") BytePointer error, int errorLength);

    /** {@code msptiSubscribe}: MSPTI allows one subscriber per process. */
    public static native int ftm_subscribe(Handle library);

    public static native int ftm_unsubscribe(Handle library);

    public static native int ftm_register(Handle library, @Cast("int64_t") long bufferBytes, BufferSink sink);

    public static native int ftm_enable(Handle library, int kind);

    public static native int ftm_disable(Handle library, int kind);

    public static native int ftm_flush_all(Handle library, int flag);

    public static native int ftm_push(Handle library, int kind, @Cast("int64_t") long id);

    /** Pops into {@code last} (a real out-parameter, always). */
    public static native int ftm_pop(Handle library, int kind, @Cast("int64_t*") LongPointer last);

    /** Calls {@code int64_t symbol(int64_t)} in the library; -1 when it has no such symbol. */
    @Cast("int64_t")
    public static native long ftm_invoke(Handle library, String symbol, @Cast("int64_t") long argument);

    @Cast("int64_t")
    public static native long ftm_buffers_in_flight(Handle library);

    @Cast("int64_t")
    public static native long ftm_allocation_failures(Handle library);

    public static native void ftm_detach(Handle library);

    private MsptiLibrary() {
    }
}
