package org.flagos.trace.vendors.activity;

import java.lang.ref.WeakReference;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.bytedeco.javacpp.BytePointer;

/**
 * Which tracer a shim's completed buffer belongs to, by the address of the shim's library struct
 * that completed it (a CUPTI-family {@code ft_family}, an MSPTI {@code ftm_library}, a ROCtracer
 * {@code ft_roc}).
 *
 * <p>Why a shim has one buffer sink for the whole JVM, and this table behind it: a sink is a
 * JavaCPP callback, and JavaCPP gives each callback class 10 native slots for the process, freed
 * only when a callback object is garbage-collected. With a sink per tracer, the 11th tracer alive
 * at once got a null function pointer and no error, and every buffer of its sessions was freed
 * unread (the load loop's sessions with no device record at all, in 3 runs of 20: which runs
 * depended on when the GC ran). Each shim's tracer class now makes one sink, and routes through
 * here.
 *
 * <p>A tracer is held weakly: one that is no longer used can be collected (its library stays
 * loaded); a buffer that completes for a library whose tracer is gone, or was never routed, is
 * counted ({@link #unrouted()}).
 */
public final class BufferRoutes {
    private final ConcurrentHashMap<Long, WeakReference<ActivityTracer<?>>> routes = new ConcurrentHashMap<>();
    private final AtomicLong unrouted = new AtomicLong();

    /** Buffers from the shim library at {@code library} (its struct's address) go to {@code tracer}. */
    public void route(long library, ActivityTracer<?> tracer) {
        routes.values().removeIf(r -> r.get() == null);
        routes.put(library, new WeakReference<>(tracer));
    }

    /**
     * From a shim's one sink, on the vendor's thread: hands the buffer to the tracer routed for
     * {@code library}; nothing unwinds into the native frame.
     */
    public void deliver(long library, BytePointer buffer, long validSize) {
        WeakReference<ActivityTracer<?>> route = routes.get(library);
        ActivityTracer<?> tracer = route != null ? route.get() : null;
        if (tracer == null) {
            unrouted.incrementAndGet();
            return;
        }
        tracer.deliverFromNative(buffer, validSize);
    }

    /** Buffers that completed for a library no live tracer was routed for (dropped, counted here). */
    public long unrouted() {
        return unrouted.get();
    }
}
