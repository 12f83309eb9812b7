package org.flagos.trace.encoders;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The cached {@code ,"pid":P,"tid":T,"ts":} text of a row: whatever rows come in whatever order (more
 * rows than the cache has slots, so they evict each other, and the widest longs), each copy is
 * exactly its row's text, and nothing around it in the destination is touched.
 */
class RowFieldsTest {
    private static String expected(long p, long t) {
        return ",\"pid\":" + p + ",\"tid\":" + t + ",\"ts\":";
    }

    private static void assertCopies(RowFields rows, long p, long t) {
        byte[] into = new byte[RowFields.WIDTH + 20];
        Arrays.fill(into, (byte) '#');
        int end = rows.copy(p, t, into, 10);
        String want = expected(p, t);
        assertEquals(10 + want.length(), end, want);
        assertEquals("#".repeat(10) + want + "#".repeat(into.length - end), new String(into, StandardCharsets.US_ASCII));
    }

    @Test
    void theWidestRowsFit() {
        RowFields rows = new RowFields();
        assertEquals(60, expected(Long.MIN_VALUE, Long.MIN_VALUE).length(), "the longest text is within WIDTH");
        assertCopies(rows, Long.MIN_VALUE, Long.MIN_VALUE);
        assertCopies(rows, Long.MAX_VALUE, -1);
        assertCopies(rows, 0, 0);
        assertCopies(rows, Long.MIN_VALUE, Long.MIN_VALUE); // from the cache
    }

    @Test
    void manyRowsEvictingEachOtherEachCopyTheirOwnText() {
        RowFields rows = new RowFields();
        Random r = new Random(11);
        long[][] pool = new long[500][];
        for (int i = 0; i < pool.length; i++) {
            // a few pids with many tids, as a capture has (host threads, device streams), and some extreme ones
            pool[i] = i % 50 == 0 ? new long[] {r.nextLong(), r.nextLong()} : new long[] {1000 + i % 7, 4_000_000 + r.nextInt(100_000)};
        }
        for (int i = 0; i < 20_000; i++) {
            long[] row = pool[r.nextInt(i < 5_000 ? 40 : pool.length)];
            assertCopies(rows, row[0], row[1]);
        }
        // two rows that differ only in pid or only in tid never share text
        assertCopies(rows, 5, 6);
        assertCopies(rows, 6, 5);
        assertCopies(rows, 5, 6);
    }
}
