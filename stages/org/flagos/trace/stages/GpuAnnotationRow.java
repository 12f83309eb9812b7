package org.flagos.trace.stages;

/**
 * A host op's span on one device stream as {@link TraceWalk} hands it to a {@link TraceSink}: torch's
 * {@code gpu_user_annotation}, from the earliest start to the latest end of the device records of the
 * op and of the ops nested in it on that stream, 1 ns wider on each side (as torch draws it), drawn on
 * the stream's row. One object, refilled for
 * every span: a sink reads it during the call only.
 */
public final class GpuAnnotationRow {
    /** The op's name in the capture's name table. */
    public int nameId;
    /** The row: the device (pid) and stream (tid), as the device records'. */
    public int device;
    public int stream;
    public long startNs;
    public long endNs;
    /** The op's External id ({@code args["External id"]}). */
    public long externalId;
}
