package org.flagos.trace.stages;

/**
 * An annotation mark (NVTX's {@code nvtxMark}) as a {@link TraceSink} draws it: an instant on the
 * host thread that made it. Refilled for every mark; valid only during the sink call.
 */
public final class MarkRow {
    /** The mark's message in the capture's name table. */
    public int nameId;
    /** Its domain's name in the name table, or -1 for the default domain. */
    public int domainNameId;
    public long pid;
    public long tid;
    public long tsNs;
}
