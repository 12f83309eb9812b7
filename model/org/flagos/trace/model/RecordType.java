package org.flagos.trace.model;

/** What a ring slot carries. */
public enum RecordType {
    /** A vendor activity: device work or an API call; see {@link TraceRecord#kind}. */
    ACTIVITY,
    /** A vendor record binding a correlation id to an External id; produces no trace event. */
    CORRELATION_BINDING,
    /** A host op range with its External id. */
    HOST_OP,
    /** The capture is complete: stages flush what they hold. Published exactly once, last. */
    END_OF_CAPTURE
}
