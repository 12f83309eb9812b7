package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;
import org.flagos.trace.testing.CollectingSink;
import org.junit.jupiter.api.Test;

/**
 * The contract every vendor's {@link ActivityBufferDecoder} satisfies, run against a real buffer
 * of that vendor. A new vendor's decoder test extends this class.
 */
public abstract class ActivityDecoderContract {
    /** A fresh decoder. */
    protected abstract ActivityBufferDecoder decoder();

    /** A real activity buffer of the vendor, exactly its valid size. */
    protected abstract byte[] realBuffer();

    /** A record kind number the vendor does not define. */
    protected abstract int unknownKind();

    private static ByteBuffer exactly(byte[] bytes, int length) {
        byte[] copy = new byte[length];
        System.arraycopy(bytes, 0, copy, 0, length);
        return ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN);
    }

    private int decodeCount(ByteBuffer buffer, DecodeStats stats) {
        CollectingSink sink = new CollectingSink();
        decoder().decode(buffer, sink, stats);
        return sink.records.size();
    }

    @Test
    void anEmptyBufferPublishesNothing() {
        DecodeStats stats = new DecodeStats();
        assertEquals(0, decodeCount(ByteBuffer.allocate(0), stats));
        assertEquals(0, stats.undecodableBytes());
    }

    @Test
    void theRealBufferDecodesCompletely() {
        DecodeStats stats = new DecodeStats();
        int n = decodeCount(exactly(realBuffer(), realBuffer().length), stats);
        assertTrue(n > 0);
        assertEquals(0, stats.undecodableBytes());
        assertEquals(n, stats.publishedTotal());
    }

    /** Cutting the buffer anywhere keeps what precedes the cut, counts the rest, never reads past it. */
    @Test
    void everyTruncationKeepsThePrefixAndNeverReadsOutside() {
        byte[] real = realBuffer();
        int previous = 0;
        for (int cut = 0; cut <= real.length; cut += cut < 512 ? 1 : 37) {
            DecodeStats stats = new DecodeStats();
            ByteBuffer truncated = exactly(real, cut); // a read past `cut` would throw here
            int n = assertDoesNotThrow(() -> decodeCount(truncated, stats), "cut at " + cut);
            assertTrue(n >= previous, "records decoded never shrink as the cut moves right (cut " + cut + ")");
            assertTrue(stats.undecodableBytes() <= cut);
            previous = n;
        }
    }

    @Test
    void aBufferInsideALargerOneIsReadOnlyWithinItsBounds() {
        byte[] real = realBuffer();
        byte[] padded = new byte[real.length + 64];
        System.arraycopy(real, 0, padded, 24, real.length);
        java.util.Arrays.fill(padded, 0, 24, (byte) 0x7f);
        java.util.Arrays.fill(padded, 24 + real.length, padded.length, (byte) 0x7f);
        ByteBuffer view = ByteBuffer.wrap(padded).order(ByteOrder.LITTLE_ENDIAN);
        view.position(24).limit(24 + real.length);
        DecodeStats stats = new DecodeStats();
        assertEquals(decodeCount(exactly(real, real.length), new DecodeStats()), decodeCount(view, stats));
        assertEquals(0, stats.undecodableBytes());
    }

    @Test
    void garbageIsCountedNeverThrown() {
        Random random = new Random(42);
        for (int i = 0; i < 200; i++) {
            byte[] junk = new byte[random.nextInt(2048)];
            random.nextBytes(junk);
            DecodeStats stats = new DecodeStats();
            assertDoesNotThrow(() -> decodeCount(ByteBuffer.wrap(junk), stats));
        }
    }

    @Test
    void anUnknownKindEndsTheWalkAndCountsTheRest() {
        byte[] real = realBuffer();
        ByteBuffer buffer = ByteBuffer.allocate(real.length + 64).order(ByteOrder.LITTLE_ENDIAN);
        buffer.put(real).putInt(unknownKind()).put(new byte[60]).flip();
        DecodeStats stats = new DecodeStats();
        int withJunk = decodeCount(buffer, stats);
        assertEquals(decodeCount(exactly(real, real.length), new DecodeStats()), withJunk);
        assertEquals(64, stats.undecodableBytes());
        assertTrue(stats.problems().contains(Integer.toString(unknownKind())), stats.problems());
    }
}
