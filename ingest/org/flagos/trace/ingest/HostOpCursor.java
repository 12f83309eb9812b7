package org.flagos.trace.ingest;

/** Ops one at a time, in recorded order; holds at most the current op. */
public interface HostOpCursor extends AutoCloseable {
    /** The next op, or null after the last. */
    HostOp next();

    @Override
    void close();
}
