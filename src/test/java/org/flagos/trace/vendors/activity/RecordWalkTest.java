package org.flagos.trace.vendors.activity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.model.DecodeStats;
import org.junit.jupiter.api.Test;

/**
 * The one walk over kind-prefixed records (CUPTI's and its family's, MSPTI's): every whole record is
 * returned once, in order, and whatever ends a walk early (stray bytes, an unknown kind, a cut record)
 * is counted as undecodable with the line each vendor's problems have always had.
 */
class RecordWalkTest {
    /** Kind 1: 8 bytes; kind 2: 16 bytes; kind 300 would be 8 but lies past the table; others unknown. */
    private static final RecordWalk WALK = new RecordWalk("TEST", k -> k == 1 || k == 300 ? 8 : k == 2 ? 16 : -1,
            " to layout T");

    private static ByteBuffer records(int... kindsAndSizes) {
        int total = 0;
        for (int i = 1; i < kindsAndSizes.length; i += 2) {
            total += kindsAndSizes[i];
        }
        ByteBuffer b = ByteBuffer.allocate(total).order(ByteOrder.LITTLE_ENDIAN);
        int at = 0;
        for (int i = 0; i < kindsAndSizes.length; i += 2) {
            b.putInt(at, kindsAndSizes[i]);
            at += kindsAndSizes[i + 1];
        }
        return b;
    }

    /** The offsets and kinds the walk returns, as "offset:kind". */
    private static List<String> walk(ByteBuffer source, DecodeStats stats) {
        List<String> seen = new ArrayList<>();
        ByteBuffer buffer = WALK.start(source, stats);
        for (int pos = WALK.next(); pos >= 0; pos = WALK.next()) {
            assertEquals(WALK.kind(), buffer.getInt(pos));
            seen.add(pos + ":" + WALK.kind());
        }
        assertEquals(-1, WALK.next(), "a walk that ended stays ended");
        return seen;
    }

    @Test
    void returnsEveryWholeRecordInOrder() {
        DecodeStats stats = new DecodeStats();
        assertEquals(List.of("0:1", "8:2", "24:1"), walk(records(1, 8, 2, 16, 1, 8), stats));
        assertEquals(0, stats.undecodableBytes());
        assertEquals("", stats.problems());
    }

    @Test
    void walksFromThePositionToTheLimit() {
        ByteBuffer b = records(1, 8, 2, 16, 1, 8);
        b.position(8).limit(24);
        DecodeStats stats = new DecodeStats();
        assertEquals(List.of("8:2"), walk(b, stats));
        assertEquals(0, stats.undecodableBytes());
    }

    @Test
    void readsABigEndianSourceAsLittleEndian() {
        ByteBuffer b = records(2, 16, 1, 8).order(ByteOrder.BIG_ENDIAN);
        assertEquals(List.of("0:2", "16:1"), walk(b, new DecodeStats()));
        assertEquals(ByteOrder.BIG_ENDIAN, b.order(), "the caller's buffer is left as it was");
        ByteBuffer little = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
        assertSame(little, RecordWalk.littleEndian(little));
    }

    @Test
    void strayBytesEndTheWalkCounted() {
        ByteBuffer b = ByteBuffer.allocate(11).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 1);
        DecodeStats stats = new DecodeStats();
        assertEquals(List.of("0:1"), walk(b, stats));
        assertEquals(3, stats.undecodableBytes());
        assertEquals("TEST buffer ends with 3 stray bytes at offset 8", stats.problems());
    }

    @Test
    void anUnknownKindEndsTheWalkWithTheRestCounted() {
        DecodeStats stats = new DecodeStats();
        assertEquals(List.of("0:1"), walk(records(1, 8, 7, 8, 1, 8), stats));
        assertEquals(16, stats.undecodableBytes());
        assertEquals("unknown TEST activity kind 7 at offset 8: its size is unknown to layout T, rest of buffer (16 bytes)"
                + " skipped", stats.problems());
    }

    @Test
    void kindsPastTheTableAndNegativeOnesAreUnknown() {
        DecodeStats stats = new DecodeStats();
        assertEquals(List.of(), walk(records(300, 8), stats));
        assertEquals(8, stats.undecodableBytes());
        DecodeStats negative = new DecodeStats();
        assertEquals(List.of(), walk(records(-1, 8), negative));
        assertEquals("unknown TEST activity kind -1 at offset 0: its size is unknown to layout T, rest of buffer (8 bytes)"
                + " skipped", negative.problems());
    }

    @Test
    void aCutRecordEndsTheWalkCounted() {
        ByteBuffer b = records(1, 8, 2, 12);
        DecodeStats stats = new DecodeStats();
        assertEquals(List.of("0:1"), walk(b, stats));
        assertEquals(12, stats.undecodableBytes());
        assertEquals("TEST record of kind 2 at offset 8 needs 16 bytes, buffer has 12", stats.problems());
    }

    @Test
    void aReusedWalkStartsOver() {
        DecodeStats first = new DecodeStats();
        walk(records(1, 8, 9, 8), first);
        DecodeStats second = new DecodeStats();
        assertEquals(List.of("0:2"), walk(records(2, 16), second));
        assertEquals(0, second.undecodableBytes());
    }

    /**
     * Kind 0 (every such vendor's invalid kind) where a record starts: one the vendor had reserved and
     * not yet written when it handed the buffer over (buffers are lent zeroed). On the H200 the dump's
     * copy ended in 40-56 such bytes: counted as unwritten, not as undecodable, and the walk ends.
     */
    @Test
    void anUnwrittenRecordEndsTheWalkCountedAsUnwritten() {
        DecodeStats stats = new DecodeStats();
        assertEquals(List.of("0:1", "8:2"), walk(records(1, 8, 2, 16, 0, 40), stats));
        assertEquals(40, stats.unwrittenBytes());
        assertEquals(0, stats.undecodableBytes());
        assertEquals("", stats.problems());
    }

    @Test
    void aLayoutThatSizesKindZeroWalksIt() {
        RecordWalk walk = new RecordWalk("TEST", k -> k == 0 ? 8 : -1, "");
        DecodeStats stats = new DecodeStats();
        ByteBuffer b = walk.start(records(0, 8), stats);
        assertEquals(0, walk.next());
        assertEquals(0, b.getInt(0));
        assertEquals(0, stats.unwrittenBytes());
    }
}
