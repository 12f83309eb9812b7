package org.flagos.trace.session;

import org.flagos.trace.model.HostOpMarker;
import org.flagos.trace.model.OpArgs;
import org.flagos.trace.model.OpStack;

/**
 * One host op, open from {@link ProfilerSession#op} until {@link #close()}. While it is open its
 * External id is the calling thread's external correlation id, so device work launched on this
 * thread is attributed to it (to the innermost open op). Ops nest per thread and must be closed
 * in reverse order of opening, on the thread that opened them. An op opened on a session that has
 * already closed (a worker thread racing the stop) is inert: it records nothing.
 */
public final class OpScope implements HostOpMarker.Scope {
    private final ProfilerSession session;
    private final String name;
    private final long externalId;
    private final long thread;
    private final long startNs;
    private final boolean pushed;
    private final OpArgs args;
    private final OpStack stack;
    private final boolean annotation;
    private boolean closed;

    OpScope(ProfilerSession session, String name, long externalId, long thread, long startNs, boolean pushed) {
        this(session, name, externalId, thread, startNs, pushed, null, null, false);
    }

    OpScope(ProfilerSession session, String name, long externalId, long thread, long startNs, boolean pushed, OpArgs args,
            OpStack stack, boolean annotation) {
        this.annotation = annotation;
        this.args = args;
        this.stack = stack;
        this.session = session;
        this.name = name;
        this.externalId = externalId;
        this.thread = thread;
        this.startNs = startNs;
        this.pushed = pushed;
    }

    /** An op that records nothing: its session had closed when it was opened. */
    static OpScope inert(String name) {
        return new OpScope(null, name, -1, Thread.currentThread().getId(), 0, false);
    }

    /** The op's External id (0 is valid); -1 for an op opened after its session closed. */
    public long externalId() {
        return externalId;
    }

    public String name() {
        return name;
    }

    /** The op's args, or null. */
    public OpArgs args() {
        return args;
    }

    /** The call stack that opened the op, or null when the session records none. */
    public OpStack stack() {
        return stack;
    }

    /** Whether the op is a user annotation ({@code user_annotation}, as torch's {@code ProfilerStep#N}), not a {@code cpu_op}. */
    boolean annotation() {
        return annotation;
    }

    long thread() {
        return thread;
    }

    long startNs() {
        return startNs;
    }

    /** Whether the op's id reached the vendor's correlation stack (and must be popped). */
    boolean pushed() {
        return pushed;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            if (session != null) {
                session.close(this);
            }
        }
    }
}
