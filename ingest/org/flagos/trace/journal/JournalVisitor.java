package org.flagos.trace.journal;

import java.nio.ByteBuffer;
import org.flagos.trace.ingest.HostOp;

/** Receives a journal's records in the order they were journaled. */
public interface JournalVisitor {
    /** One host op. */
    void op(HostOp op);

    /**
     * One whole vendor buffer (its parts reassembled and checked), little-endian, position 0; valid
     * only during the call.
     */
    void buffer(int vendor, int layout, ByteBuffer bytes);
}
