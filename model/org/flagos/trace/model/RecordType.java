package org.flagos.trace.model;

/** What a ring slot carries. */
public enum RecordType {
    /** A vendor activity: device work or an API call; see {@link TraceRecord#kind}. */
    ACTIVITY,
    /** A vendor record binding a correlation id to an External id; produces no trace event. */
    CORRELATION_BINDING,
    /** A host op range with its External id. */
    HOST_OP,
    /**
     * A live tracer's flush barrier at host time {@link TraceRecord#startNs}: every record of a vendor
     * call that returned before it was published ahead of this slot, so a host op that ended before it
     * and has no binding yet launched nothing. Produces no trace event.
     */
    FLUSH_BARRIER,
    /** The capture is complete: stages flush what they hold. Published exactly once, last. */
    END_OF_CAPTURE
}
