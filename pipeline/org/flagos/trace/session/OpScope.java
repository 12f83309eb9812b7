package org.flagos.trace.session;

/**
 * One host op, open from {@link ProfilerSession#op} until {@link #close()}. While it is open its
 * External id is the calling thread's external correlation id, so device work launched on this
 * thread is attributed to it (to the innermost open op). Ops nest per thread and must be closed
 * in reverse order of opening, on the thread that opened them.
 */
public final class OpScope implements AutoCloseable {
    private final ProfilerSession session;
    private final String name;
    private final long externalId;
    private final long thread;
    private final long startNs;
    private boolean closed;

    OpScope(ProfilerSession session, String name, long externalId, long thread, long startNs) {
        this.session = session;
        this.name = name;
        this.externalId = externalId;
        this.thread = thread;
        this.startNs = startNs;
    }

    /** The op's External id (0 is valid). */
    public long externalId() {
        return externalId;
    }

    public String name() {
        return name;
    }

    long thread() {
        return thread;
    }

    long startNs() {
        return startNs;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            session.close(this);
        }
    }
}
