package org.flagos.trace.vendors.activity;

import java.nio.ByteBuffer;

/**
 * The one bounds check every vendor flyweight's {@code wrap} performs (CUPTI and its family, MSPTI,
 * ROCtracer): a record must lie whole inside the buffer's valid bytes before a field is read.
 */
public final class RecordBounds {
    /**
     * Throws when {@code size} bytes at {@code offset} do not lie within {@code [0, buffer.limit())}.
     *
     * @param record the record's name, for the message
     */
    public static void check(ByteBuffer buffer, int offset, int size, String record) {
        if (offset < 0 || offset > buffer.limit() - size) {
            throw new IndexOutOfBoundsException(record + " of " + size + " bytes at offset " + offset
                    + " runs past the buffer's valid size " + buffer.limit());
        }
    }

    private RecordBounds() {
    }
}
