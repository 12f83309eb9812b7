package org.flagos.trace.stages;

/**
 * A settled host op as {@link TraceWalk} hands it to a {@link TraceSink}: its row (the host pid
 * and the thread its API calls ran on), times and torch's {@code cpu_op} args. One object, refilled
 * for every op: a sink reads it during the call only.
 */
public final class HostOpRow {
    /** The op's name in the capture's name table. */
    public int nameId;
    /** The row's process: the first API record's pid, else the header's, else one clear of devices. */
    public long pid;
    /** The row's thread: the thread the op's API calls ran on, once known, else the op's own. */
    public long tid;
    /** The program's name of the op's thread in the name table, or -1. */
    public int threadNameId;
    public long startNs;
    public long endNs;
    public long externalId;
    /** The op's own thread id ({@code args.thread}), or -1 when the op recorded none. */
    public long thread;
    /** torch's {@code Ev Idx}: the rank in which op rows are written. */
    public long evIdx;
    /** The op's args, or null when it has none. */
    public org.flagos.trace.model.OpArgs args;
    /** The call stack that opened the op, or null. */
    public org.flagos.trace.model.OpStack stack;
    /**
     * True for an annotation range (NVTX) or a host op that is a user annotation (a scheduled
     * session's {@code ProfilerStep#N}), drawn as torch's {@code user_annotation}: External id,
     * Record function id and Ev Idx only, as torch gives a {@code record_function} range.
     */
    public boolean annotation;
    /** An annotation range's domain name in the name table, or -1 (the default domain, or an op). */
    public int domainNameId = -1;
}
