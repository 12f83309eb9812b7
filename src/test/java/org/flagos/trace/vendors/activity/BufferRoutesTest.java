package org.flagos.trace.vendors.activity;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.ref.WeakReference;
import org.bytedeco.javacpp.BytePointer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * One sink per shim, routed by library address: a buffer reaches the tracer routed for its library
 * and no other, a later route replaces an earlier one, and a buffer of a library nobody routed (or
 * whose tracer was collected) is counted, never delivered. Delivery is seen through each scripted
 * tracer's count of buffers that completed outside a session (none is started).
 */
class BufferRoutesTest {
    private static final BytePointer BUFFER = new BytePointer(64);

    @Test
    void aBufferReachesOnlyTheTracerRoutedForItsLibrary() {
        BufferRoutes routes = new BufferRoutes();
        ActivityTracerTest.ScriptedTracer a = new ActivityTracerTest.ScriptedTracer(false);
        ActivityTracerTest.ScriptedTracer b = new ActivityTracerTest.ScriptedTracer(false);
        routes.route(0x1000, a);
        routes.route(0x2000, b);
        routes.deliver(0x1000, BUFFER, 64);
        routes.deliver(0x1000, BUFFER, 64);
        routes.deliver(0x2000, BUFFER, 64);
        assertEquals(2, a.buffersOutsideSession());
        assertEquals(1, b.buffersOutsideSession());
        assertEquals(0, routes.unrouted());
    }

    @Test
    void aLaterRouteReplacesAnEarlierOne() {
        BufferRoutes routes = new BufferRoutes();
        ActivityTracerTest.ScriptedTracer first = new ActivityTracerTest.ScriptedTracer(false);
        ActivityTracerTest.ScriptedTracer second = new ActivityTracerTest.ScriptedTracer(false);
        routes.route(0x1000, first);
        routes.route(0x1000, second);
        routes.deliver(0x1000, BUFFER, 64);
        assertEquals(0, first.buffersOutsideSession());
        assertEquals(1, second.buffersOutsideSession());
    }

    @Test
    void aBufferOfAnUnroutedLibraryIsCounted() {
        BufferRoutes routes = new BufferRoutes();
        ActivityTracerTest.ScriptedTracer a = new ActivityTracerTest.ScriptedTracer(false);
        routes.route(0x1000, a);
        routes.deliver(0x3000, BUFFER, 64);
        routes.deliver(0, BUFFER, 64);
        assertEquals(2, routes.unrouted());
        assertEquals(0, a.buffersOutsideSession());
    }

    @Test
    void aCollectedTracersBuffersAreCountedNotDelivered() throws InterruptedException {
        BufferRoutes routes = new BufferRoutes();
        WeakReference<Object> probe = routeAndForget(routes, 0x4000);
        for (int i = 0; i < 50 && probe.get() != null; i++) {
            System.gc();
            Thread.sleep(10);
        }
        Assumptions.assumeTrue(probe.get() == null, "the JVM did not collect the tracer");
        routes.deliver(0x4000, BUFFER, 64);
        assertEquals(1, routes.unrouted());
    }

    /** Routes a tracer nothing else holds; returns a weak reference to it. */
    private static WeakReference<Object> routeAndForget(BufferRoutes routes, long library) {
        ActivityTracerTest.ScriptedTracer tracer = new ActivityTracerTest.ScriptedTracer(false);
        routes.route(library, tracer);
        return new WeakReference<>(tracer);
    }
}
