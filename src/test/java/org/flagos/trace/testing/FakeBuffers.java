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
    /** The buffers the fake completed while {@code calls} ran with {@code kinds} enabled and External id 7 pushed. */
    public static List<byte[]> collect(String fake, String prefix, long resetArgument, int[] kinds, String... calls) {
        String path = FakeVendorLibrary.build(fake).toString();
        BytePointer error = new BytePointer(512);
        Handle lib = CuptiFamilyLibrary.ft_family_open(path, prefix, error, 512);
        if (lib == null || lib.isNull()) {
            throw new IllegalStateException(error.getString(StandardCharsets.UTF_8));
        }
        List<byte[]> buffers = new ArrayList<>();
        CuptiFamilyLibrary.BufferSink sink = new CuptiFamilyLibrary.BufferSink() {
            @Override
            public void call(BytePointer buffer, long validSize) {
                byte[] bytes = new byte[(int) validSize];
                buffer.position(0).capacity(validSize).asByteBuffer().get(bytes);
                if (bytes.length > 0) {
                    buffers.add(bytes);
                }
            }
        };
        CuptiFamilyLibrary.ft_family_invoke(lib, "fakeReset", resetArgument);
        CuptiFamilyLibrary.ft_family_register(lib, 1 << 20, sink);
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
