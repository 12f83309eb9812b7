package org.flagos.trace.vendors.mspti;

import java.nio.ByteBuffer;

/** The one bounds check every MSPTI flyweight's {@code wrap} performs. */
final class MsptiRecordBounds {
    static void check(ByteBuffer buffer, int offset, int size, String record) {
        if (offset < 0 || offset > buffer.limit() - size) {
            throw new IndexOutOfBoundsException(record + " of " + size + " bytes at offset " + offset
                    + " runs past the buffer's valid size " + buffer.limit());
        }
    }

    private MsptiRecordBounds() {
    }
}
