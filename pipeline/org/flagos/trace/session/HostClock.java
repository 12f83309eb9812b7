package org.flagos.trace.session;

import org.flagos.trace.pipeline.DeviceTracer;

/**
 * UNIX-epoch nanoseconds in the vendor's clock domain, cheap enough to read twice per op: the
 * monotonic {@link System#nanoTime()} plus an offset taken from the tracer's own timestamp when
 * the session starts. Reading a different clock (MONOTONIC against epoch) would put host ops
 * decades away from device records and the window would discard everything.
 */
final class HostClock {
    private final long offset;

    HostClock(DeviceTracer tracer) {
        long before = System.nanoTime();
        long vendor = tracer.timestampNs();
        long after = System.nanoTime();
        this.offset = vendor - (before + (after - before) / 2);
    }

    long now() {
        return System.nanoTime() + offset;
    }
}
