package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The size of CUPTI's activity buffers from the two settings ({@link CuptiBufferPool#bufferBytes}). */
class CuptiBufferSizeTest {
    @Test
    void oneMebibyteUnlessToldOtherwise() {
        assertEquals(1 << 20, CuptiBufferPool.bufferBytes(null, null));
    }

    @Test
    void kibibytesSetTheSizeWithinSixtyFourKibToSixtyFourMib() {
        assertEquals(512 << 10, CuptiBufferPool.bufferBytes(null, 512));
        assertEquals(64 << 10, CuptiBufferPool.bufferBytes(null, 1), "below the least: the least");
        assertEquals(64 << 10, CuptiBufferPool.bufferBytes(null, -5));
        assertEquals(64 << 20, CuptiBufferPool.bufferBytes(null, Integer.MAX_VALUE), "above the most: the most, no overflow");
    }

    @Test
    void theOlderMebibyteSettingWinsAndIsBoundedTheSameWay() {
        assertEquals(2 << 20, CuptiBufferPool.bufferBytes(2, 256));
        assertEquals(64 << 20, CuptiBufferPool.bufferBytes(Integer.MAX_VALUE, null), "no overflow");
        assertEquals(64 << 10, CuptiBufferPool.bufferBytes(0, null));
    }
}
