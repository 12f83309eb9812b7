package org.flagos.trace.testing;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.nio.charset.StandardCharsets;
import org.bytedeco.javacpp.BytePointer;
import org.flagos.trace.natives.CuptiFamilyLibrary;
import org.flagos.trace.natives.CuptiFamilyLibrary.Handle;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The fake CUPTI of the native detach's tests (src/test/native/fake_cupti_detach.c), built and kept loaded for the
 * class's tests (the detach finds it with RTLD_NOLOAD), its hooks callable. Registered as a static field
 * ({@code @RegisterExtension static final FakeCuptiDetach FAKE = new FakeCuptiDetach();}); after the class, the
 * handle is let go.
 */
public final class FakeCuptiDetach implements BeforeAllCallback, AfterAllCallback {
    /** The fake's counters, as {@code cuptiFakeCount} numbers them. */
    public static final int SUBSCRIBES = 0;
    public static final int UNSUBSCRIBES = 1;
    public static final int FINALIZES = 2;

    private String path;
    private Handle fake;

    /** The fake library's path. */
    public String path() {
        return path;
    }

    /** Calls the fake's hook {@code symbol} with {@code argument}; its result. */
    public long hook(String symbol, long argument) {
        return CuptiFamilyLibrary.ft_family_invoke(fake, symbol, argument);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        path = FakeVendorLibrary.build("fake_cupti_detach").toString();
        BytePointer error = new BytePointer(512);
        fake = CuptiFamilyLibrary.ft_family_open(path, "cupti", error, 512); // keeps it loaded for RTLD_NOLOAD
        assertNotNull(fake, () -> error.getString(StandardCharsets.UTF_8));
    }

    @Override
    public void afterAll(ExtensionContext context) {
        CuptiFamilyLibrary.ft_family_detach(fake);
    }
}
