package org.flagos.trace.model;

/**
 * What a profiled program sees of a session: it marks host ops, nothing else. Workloads written
 * against it (the built-in GPU workloads under {@code vendors/}) need neither the session nor the
 * CLI.
 */
public interface HostOpMarker {
    /** Opens a host op on the calling thread; close it, on that thread, in reverse order of opening. */
    Scope op(String name);

    /**
     * Opens a host op that carries {@code args} (null: none) on the calling thread. A marker that
     * keeps no args opens a plain op.
     */
    default Scope op(String name, OpArgs args) {
        return op(name);
    }

    /** One open host op. */
    interface Scope extends AutoCloseable {
        @Override
        void close();
    }
}
