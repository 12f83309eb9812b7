package org.flagos.trace.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.flagos.trace.vendors.mcpti.McptiTracer;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A live {@link McptiTracer} over the fake MCPTI library (src/test/native/fake_mcpti.c), for the tests
 * that drive sessions without a GPU. Registered as a static field ({@code @RegisterExtension static
 * final FakeMcpti FAKE = new FakeMcpti();}), it loads the tracer once before the class's tests (and
 * fails them where the library cannot load) and resets the fake before each test, so that no scripted
 * quirk carries over and its counts are exact.
 */
public final class FakeMcpti implements BeforeAllCallback, BeforeEachCallback {
    private McptiTracer tracer;

    /** The tracer, loaded before the class's first test. */
    public McptiTracer tracer() {
        return tracer;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        tracer = new McptiTracer(FakeVendorLibrary.build("fake_mcpti").toString());
        assertTrue(tracer.available(), tracer.unavailableReason());
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        tracer.invoke("fakeReset", 0);
    }
}
