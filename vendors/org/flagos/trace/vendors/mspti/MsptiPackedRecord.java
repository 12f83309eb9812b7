package org.flagos.trace.vendors.mspti;

import java.nio.ByteBuffer;
import org.flagos.trace.model.RecordNaming;
import org.flagos.trace.vendors.activity.RecordBounds;

/**
 * What MSPTI's {@code msptiActivityKernel} and {@code msptiActivityApi} share, both packed: the 8-byte
 * start at offset 4 and end at 12 (unaligned), two ints at 20 and 24 (device and stream for a kernel,
 * process and thread for a call), the 64-bit correlation id at 28, then a name pointer the name stage
 * resolves. One flyweight base reads the shared fields, read in place; every method is final, so the
 * translators call them directly.
 */
abstract class MsptiPackedRecord {
    private static final int START = 4;
    private static final int END = 12;
    private static final int CORRELATION_ID = 28;

    private final int size;
    private final String record;
    ByteBuffer buffer;
    int offset;
    /** How the name stage resolves the name pointer; set by the decoder. */
    RecordNaming naming;

    /**
     * @param size   the struct's size (its bounds when wrapped)
     * @param record the struct's name, for a bounds problem
     */
    MsptiPackedRecord(int size, String record) {
        this.size = size;
        this.record = record;
    }

    final void wrap(ByteBuffer buffer, int offset) {
        RecordBounds.check(buffer, offset, size, record);
        this.buffer = buffer;
        this.offset = offset;
    }

    final long start() {
        return buffer.getLong(offset + START);
    }

    final long end() {
        return buffer.getLong(offset + END);
    }

    final long correlationId() {
        return buffer.getLong(offset + CORRELATION_ID);
    }
}
