package org.flagos.trace.vendors.activity;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * The one bounds check of every vendor flyweight: a record lies whole inside the buffer's valid bytes
 * (its limit, not its capacity), including at the very end, and anything else (negative offsets, one
 * byte short, offsets near the int range's end that would wrap if added) is refused in one message.
 */
class RecordBoundsTest {
    private static String refused(ByteBuffer b, int offset, int size) {
        return assertThrows(IndexOutOfBoundsException.class, () -> RecordBounds.check(b, offset, size, "rec")).getMessage();
    }

    @Test
    void aRecordMustLieWholeWithinTheValidBytes() {
        ByteBuffer b = ByteBuffer.allocate(256).limit(100);
        assertDoesNotThrow(() -> RecordBounds.check(b, 0, 100, "rec"));
        assertDoesNotThrow(() -> RecordBounds.check(b, 44, 56, "rec"), "ending exactly at the limit");
        assertDoesNotThrow(() -> RecordBounds.check(b, 100, 0, "rec"));
        assertEquals("rec of 56 bytes at offset 45 runs past the buffer's valid size 100", refused(b, 45, 56));
        assertEquals("rec of 101 bytes at offset 0 runs past the buffer's valid size 100", refused(b, 0, 101),
                "the limit counts, not the capacity");
        assertEquals("rec of 8 bytes at offset -8 runs past the buffer's valid size 100", refused(b, -8, 8));
        assertEquals("rec of 56 bytes at offset 2147483647 runs past the buffer's valid size 100", refused(b, Integer.MAX_VALUE, 56));
        assertEquals("rec of 2147483647 bytes at offset 8 runs past the buffer's valid size 100", refused(b, 8, Integer.MAX_VALUE));
        ByteBuffer empty = ByteBuffer.allocate(0);
        assertEquals("rec of 1 bytes at offset 0 runs past the buffer's valid size 0", refused(empty, 0, 1));
    }
}
