package org.flagos.trace.testing;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.LongPointer;
import org.flagos.trace.natives.CuptiFamilyLibrary;
import org.flagos.trace.natives.CuptiFamilyLibrary.Handle;

/**
 * Activity buffers written by a fake vendor library, collected through the shim without a tracer:
 * a decoder test's real buffers. The buffers are whole-record chunks, so their concatenation is a
 * buffer too.
 */
public final class FakeBuffers {
    /** Where the one sink puts buffers: the running {@link #collect}'s list (collect is synchronized). */
    private static volatile List<byte[]> collecting;

    /**
     * One sink for every collect: JavaCPP has 10 native slots per callback class, and a sink made per
     * call would take one each until a GC (the tracers' BufferRoutes says more).
     */
    private static final class Shared {
        static final CuptiFamilyLibrary.BufferSink SINK = new CuptiFamilyLibrary.BufferSink() {
            @Override
            public void call(long library, BytePointer buffer, long validSize) {
                List<byte[]> buffers = collecting;
                byte[] bytes = new byte[(int) validSize];
                buffer.position(0).capacity(validSize).asByteBuffer().get(bytes);
                if (bytes.length > 0 && buffers != null) {
                    buffers.add(bytes);
                }
            }
        };
    }

    /** The buffers the fake completed while {@code calls} ran with {@code kinds} enabled and External id 7 pushed. */
    public static synchronized List<byte[]> collect(String fake, String prefix, long resetArgument, int[] kinds, String... calls) {
        String path = FakeVendorLibrary.build(fake).toString();
        BytePointer error = new BytePointer(512);
        Handle lib = CuptiFamilyLibrary.ft_family_open(path, prefix, error, 512);
        if (lib == null || lib.isNull()) {
            throw new IllegalStateException(error.getString(StandardCharsets.UTF_8));
        }
        List<byte[]> buffers = new ArrayList<>();
        collecting = buffers;
        CuptiFamilyLibrary.ft_family_invoke(lib, "fakeReset", resetArgument);
        CuptiFamilyLibrary.ft_family_register(lib, 1 << 20, Shared.SINK);
        for (int kind : kinds) {
            CuptiFamilyLibrary.ft_family_enable(lib, kind);
        }
        CuptiFamilyLibrary.ft_family_push(lib, 3, 7);
        for (String call : calls) {
            String[] parts = call.split(":");
            CuptiFamilyLibrary.ft_family_invoke(lib, parts[0], Long.parseLong(parts[1]));
        }
        CuptiFamilyLibrary.ft_family_pop(lib, 3, new LongPointer(1));
        for (int kind : kinds) {
            CuptiFamilyLibrary.ft_family_disable(lib, kind);
        }
        CuptiFamilyLibrary.ft_family_flush_all(lib, 1);
        CuptiFamilyLibrary.ft_family_detach(lib);
        collecting = null;
        return buffers;
    }

    /** The buffers back to back. */
    public static byte[] concatenated(List<byte[]> buffers) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        buffers.forEach(out::writeBytes);
        return out.toByteArray();
    }

    /** {@code bytes} as a little-endian buffer. */
    public static ByteBuffer wrap(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    private FakeBuffers() {
    }
}
