package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link JsonBytes}: each length function equals what its write takes, and the text parses back. */
class JsonBytesTest {
    private static String text(JsonBytes b) {
        return new String(b.array(), 0, b.size(), StandardCharsets.UTF_8);
    }

    @Test
    void longLengthIsTheDecimalLengthAtEveryPowerOfTenEdge() {
        long p = 1;
        for (int d = 1; d <= 18; d++) {
            p *= 10;
            for (long v : new long[] {p - 1, p, p + 1, -(p - 1), -p, -(p + 1)}) {
                assertEquals(Long.toString(v).length(), JsonBytes.longLength(v), "for " + v);
            }
        }
        for (long v : new long[] {0, 1, -1, 9, 10, Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1}) {
            assertEquals(Long.toString(v).length(), JsonBytes.longLength(v), "for " + v);
        }
        Random r = new Random(30);
        for (int i = 0; i < 10_000; i++) {
            long v = r.nextLong() >> r.nextInt(64);
            assertEquals(Long.toString(v).length(), JsonBytes.longLength(v), "for " + v);
        }
    }

    @Test
    void writeLongWritesLongToStringAndGrowsFromOneByte() {
        JsonBytes b = new JsonBytes(1);
        StringBuilder want = new StringBuilder();
        for (long v : new long[] {0, -7, 1234567890123L, Long.MIN_VALUE, Long.MAX_VALUE, 1_000_000_000_000_000_000L}) {
            b.writeLong(v);
            b.write(',');
            want.append(v).append(',');
        }
        assertEquals(want.toString(), text(b));
        assertEquals(want.length(), b.size());
    }

    @Test
    void plainIsPrintableAsciiWithoutQuoteOrBackslash() {
        assertTrue(JsonBytes.plain(""));
        assertTrue(JsonBytes.plain(" aZ~09!#"));
        assertFalse(JsonBytes.plain("a\"b"));
        assertFalse(JsonBytes.plain("a\\b"));
        assertFalse(JsonBytes.plain("a\nb"));
        assertFalse(JsonBytes.plain("\u001f"));
        assertFalse(JsonBytes.plain("\u007f"));
        assertFalse(JsonBytes.plain("é"));
    }

    @Test
    void quotedLengthIsWhatWriteQuotedTakesAndTheStringParsesBack() throws Exception {
        ObjectMapper json = new ObjectMapper();
        String[] samples = {"", "plain ascii", "q\"b\\n\nt\t", "\u0000\u001f\u007f", "é 漢 \uD83D\uDE00",
                "void at::native::vectorized_elementwise_kernel<4, float>(int)"};
        for (String s : samples) {
            JsonBytes b = new JsonBytes(2);
            b.writeQuoted(s);
            assertEquals(JsonBytes.quotedLength(s), b.size(), "for " + s);
            assertEquals(s, json.readTree(b.array(), 0, b.size()).textValue());
        }
        JsonBytes b = new JsonBytes(4);
        b.writeQuoted("a\"b");
        assertEquals("\"a\\\"b\"", text(b));
    }

    @Test
    void writeAsciiAndRangesAppendInOrder() {
        JsonBytes b = new JsonBytes(3);
        b.writeAscii("{\"k\":");
        byte[] src = "xx[1,2]yy".getBytes(StandardCharsets.US_ASCII);
        b.write(src, 2, 7);
        b.write('}');
        assertEquals("{\"k\":[1,2]}", text(b));
    }
}
