package org.flagos.trace.testing;

import java.nio.charset.StandardCharsets;
import org.bytedeco.javacpp.BytePointer;
import org.flagos.trace.natives.CuptiFamilyLibrary;
import org.flagos.trace.natives.CuptiFamilyLibrary.Handle;

/**
 * An activity buffer written by a fake vendor library's own record writers (the same code that
 * fills its live buffers), through the shim: what a decoder contract test decodes.
 */
public final class FakeSampleBuffer {
    /** The valid bytes {@code symbol(address)} of fake {@code fake} (prefix {@code prefix}) wrote. */
    public static byte[] of(String fake, String prefix, String symbol) {
        String path = FakeVendorLibrary.build(fake).toString();
        BytePointer error = new BytePointer(512);
        Handle library = CuptiFamilyLibrary.ft_family_open(path, prefix, error, 512);
        if (library == null || library.isNull()) {
            throw new IllegalStateException(error.getString(StandardCharsets.UTF_8));
        }
        try (BytePointer out = new BytePointer(4096)) {
            long valid = CuptiFamilyLibrary.ft_family_invoke(library, symbol, out.address());
            if (valid <= 0 || valid > 4096) {
                throw new IllegalStateException(symbol + " wrote " + valid + " bytes");
            }
            byte[] bytes = new byte[(int) valid];
            out.get(bytes);
            return bytes;
        }
    }

    private FakeSampleBuffer() {
    }
}
