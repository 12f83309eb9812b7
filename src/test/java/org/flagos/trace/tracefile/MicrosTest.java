package org.flagos.trace.tracefile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link Micros}: a trace's microseconds as nanoseconds are the exact decimal value rounded half-even, as
 * {@link BigDecimal} computes it: every number of torch's own H200 trace, random texts of every form (signs,
 * fractions of any length, exponents), and the edges: a long's end, sub-nanosecond halves, exponents too large to
 * write out (refused from the digits and the exponent, the work counted), malformed texts refused.
 */
class MicrosTest {
    private static long exact(String text) {
        return new BigDecimal(text).movePointRight(3).setScale(0, RoundingMode.HALF_EVEN).longValueExact();
    }

    @Test
    void everyNumberOfTorchsTraceIsItsExactValue() throws Exception {
        int numbers = 0;
        try (JsonParser p = new JsonFactory().createParser(EventTokensTest.torchTrace().toFile())) {
            for (JsonToken t; (t = p.nextToken()) != null; ) {
                if (t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT) {
                    String text = p.getText();
                    BigDecimal micros = new BigDecimal(text);
                    if (micros.abs().compareTo(new BigDecimal("9e15")) < 0) {
                        assertEquals(exact(text), Micros.toNanos(text), text);
                        numbers++;
                    }
                }
            }
        }
        assertEquals(1910, numbers, "every number of the trace below 9e15 µs");
    }

    @Test
    void randomTextsOfEveryFormAreTheirExactValue() {
        Random r = new Random(30);
        for (int n = 0; n < 200_000; n++) {
            StringBuilder s = new StringBuilder();
            switch (r.nextInt(3)) {
                case 0 -> s.append('-');
                case 1 -> s.append(r.nextInt(8) == 0 ? "+" : "");
                default -> { }
            }
            int whole = 1 + r.nextInt(17);
            for (int i = 0; i < whole; i++) {
                s.append((char) ('0' + r.nextInt(10)));
            }
            if (r.nextBoolean()) {
                s.append('.');
                int fraction = 1 + r.nextInt(6);
                for (int i = 0; i < fraction; i++) {
                    s.append((char) ('0' + (r.nextInt(4) == 0 ? 5 : r.nextInt(10))));
                }
            }
            if (r.nextInt(5) == 0) {
                s.append(r.nextBoolean() ? 'e' : "E-").append(r.nextInt(5));
            }
            String text = s.toString();
            long want;
            try {
                want = exact(text);
            } catch (ArithmeticException beyond) {
                assertThrows(ArithmeticException.class, () -> Micros.toNanos(text), text);
                continue;
            }
            assertEquals(want, Micros.toNanos(text), text);
            // the same text within a longer array, digits and other bytes around it: read eight digits at a time
            byte[] padded = new byte[text.length() + 2 + r.nextInt(20)];
            for (int k = 0; k < padded.length; k++) {
                padded[k] = (byte) (r.nextBoolean() ? '0' + r.nextInt(10) : ".e-x".charAt(r.nextInt(4)));
            }
            System.arraycopy(text.getBytes(java.nio.charset.StandardCharsets.US_ASCII), 0, padded, 1, text.length());
            assertEquals(want, Micros.toNanos(padded, 1, 1 + text.length()), text + " within " + new String(padded, java.nio.charset.StandardCharsets.US_ASCII));
        }
    }

    @Test
    void edges() {
        assertEquals(1_500, Micros.toNanos("1.5"));
        assertEquals(-1_500, Micros.toNanos("-1.5"));
        assertEquals(1_000, Micros.toNanos("+1"));
        assertEquals(123, Micros.toNanos("0.123"));
        assertEquals(0, Micros.toNanos("0.0005"), "half a nanosecond: to the even 0");
        assertEquals(2, Micros.toNanos("0.0015"), "one and a half: to the even 2");
        assertEquals(2, Micros.toNanos("0.0025"), "two and a half: to the even 2");
        assertEquals(-2, Micros.toNanos("-0.0015"));
        assertEquals(1_000_000, Micros.toNanos("1e3"));
        assertEquals(1, Micros.toNanos("1e-3"));
        assertEquals(500, Micros.toNanos(".5"));
        assertEquals(Long.MAX_VALUE, Micros.toNanos("9223372036854775.807"));
        assertEquals(Long.MIN_VALUE, Micros.toNanos("-9223372036854775.808"));
        assertEquals(999_999_999_999_999_000L, Micros.toNanos("999999999999999"), "15 digits: the fast path");
        assertThrows(ArithmeticException.class, () -> Micros.toNanos("9223372036854775.808"));
        assertThrows(ArithmeticException.class, () -> Micros.toNanos("1e17"));
        for (String bad : new String[] {"", "-", "+", "1.2.3", "abc", "1x", "--1", "1e", "0x10", " 1"}) {
            assertThrows(NumberFormatException.class, () -> Micros.toNanos(bad), "'" + bad + "'");
        }
    }

    /**
     * A large exponent is judged from the digits and the exponent, never written out: the work (counted in bytes
     * allocated) does not grow with it. The fuzz finding {@code TablesFuzzTest-read-timeout-76f0fd4a} had a {@code ts}
     * of {@code 1795982691e100000098} µs: scaled by {@code movePointRight(3)}, whose negative scale is written out as
     * digits, it took minutes of BigInteger work before the refusal; {@code 1e100000} already allocated 8.5 MB.
     */
    @Test
    void anExponentIsNeverWrittenOut() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeTrue(mx.isThreadAllocatedMemorySupported());
        for (int warm = 0; warm < 100; warm++) {
            assertEquals(1_000_000, Micros.toNanos("1e3"));
            assertThrows(ArithmeticException.class, () -> Micros.toNanos("1e17"));
        }
        String[] beyond = {"1e100000", "-1e100000", "1.5E+2000000", "1795982691e100000098", "1e999999999", "-1e999999999"};
        String[] zero = {"1e-100000", "1795982691e-100000098", "1e-999999999", "-1e-999999999"};
        for (String text : beyond) {
            long before = mx.getCurrentThreadAllocatedBytes();
            assertThrows(ArithmeticException.class, () -> Micros.toNanos(text), text);
            long allocated = mx.getCurrentThreadAllocatedBytes() - before;
            assertTrue(allocated < 64 * 1024, text + ": allocated " + allocated + " bytes");
        }
        for (String text : zero) {
            long before = mx.getCurrentThreadAllocatedBytes();
            assertEquals(0, Micros.toNanos(text), text);
            long allocated = mx.getCurrentThreadAllocatedBytes() - before;
            assertTrue(allocated < 64 * 1024, text + ": allocated " + allocated + " bytes");
        }
    }
}
