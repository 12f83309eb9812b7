package org.flagos.trace.encoders;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Number formatting of the writer: µs with three decimals, integers, and kineto's six decimals. */
class MicrosFormatTest {
    private static String micros(long nanos) {
        return new EventBytes().reset().micros(nanos).toString();
    }

    @Test
    void alwaysThreeDecimalsNoRounding() {
        assertEquals("0.000", micros(0));
        assertEquals("0.001", micros(1));
        assertEquals("1.000", micros(1_000));
        assertEquals("12.345", micros(12_345));
        assertEquals("5124820244963.144", micros(5_124_820_244_963_144L));
        assertEquals("-0.250", micros(-250));
        assertEquals("-1.500", micros(-1_500));
    }

    @Test
    void sixDecimalsRoundTheExactBinaryValueHalfEven() {
        FixedDecimal d = new FixedDecimal();
        assertEquals("1.939394", d.format(256 / 132f));
        assertEquals("0.007576", d.format(1 / 132f));
        assertEquals("0.007812", d.format(1 / 128f), "a tie rounds to even, as printf does");
        assertEquals("0.000000", d.format(0f));
    }

    @Test
    void digitsEqualAnExactDecimalReference() {
        java.util.Random random = new java.util.Random(3);
        for (int i = 0; i < 100_000; i++) {
            long nanos = switch (i % 4) {
                case 0 -> random.nextInt(10_000) - 5_000;
                case 1 -> random.nextLong() >> 8;
                case 2 -> 1_795_982_695_163_980_562L - 1_795_982_000_000_000_000L + random.nextInt(1 << 30);
                default -> random.nextInt();
            };
            // nanos / 1000 always has exactly three decimals: the exact decimal value is the reference.
            assertEquals(java.math.BigDecimal.valueOf(nanos, 3).toPlainString(), micros(nanos), Long.toString(nanos));
            assertEquals(Long.toString(nanos), new EventBytes().reset().number(nanos).toString());
        }
        assertEquals(Long.toString(Long.MIN_VALUE), new EventBytes().reset().number(Long.MIN_VALUE).toString());
    }

    @Test
    void everyMagnitudeAndItsNeighbours() {
        for (long p = 1; p > 0; p = p > Long.MAX_VALUE / 10 ? -1 : p * 10) { // 10^0 .. 10^18
            for (long v : new long[] {p - 1, p, p + 1, -p + 1, -p, -p - 1}) {
                assertEquals(Long.toString(v), new EventBytes().reset().number(v).toString());
                assertEquals(java.math.BigDecimal.valueOf(v, 3).toPlainString(), micros(v), Long.toString(v));
                assertEquals(Long.toUnsignedString(v), new EventBytes().reset().unsigned(v).toString());
                assertEquals(Long.toString(v), new EventBytes().reset().repeated(v).repeated(v).toString().substring(
                        Long.toString(v).length()), "the cached digits");
            }
        }
        for (long v : new long[] {Long.MAX_VALUE, Long.MIN_VALUE, -1, 0}) {
            assertEquals(Long.toString(v), new EventBytes().reset().number(v).toString());
            assertEquals(Long.toUnsignedString(v), new EventBytes().reset().unsigned(v).toString());
            assertEquals(Long.toString(v), new EventBytes().reset().repeated(v).toString());
        }
        assertEquals("-9223372036854775.808", micros(Long.MIN_VALUE));
    }

    @Test
    void rowTextAndRecentUnsignedDigitsComeBackFromTheirCachesUnchanged() {
        long[] values = {0, 1, 7, 1_000_000, 4_294_967_295L, 139_871_234_567_890L, -1, Long.MIN_VALUE, Long.MAX_VALUE};
        EventBytes e = new EventBytes();
        for (int round = 0; round < 3; round++) { // hits, and misses where two rows share a slot
            for (long pid : values) {
                for (long tid : values) {
                    assertEquals(",\"pid\":" + pid + ",\"tid\":" + tid + ",\"ts\":", e.reset().row(pid, tid).toString());
                    for (long v : new long[] {pid, pid, tid, pid}) {
                        assertEquals(Long.toUnsignedString(v), e.reset().unsigned(v).toString());
                    }
                }
            }
        }
    }

    @Test
    void eventsGatherBehindCommasAndTheBufferGrowsForALongOne() {
        EventBytes e = new EventBytes(16);
        e.reset().number(1);
        e.next().number(22);
        byte[] longName = "x".repeat(100).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        e.next().string(longName);
        String all = new String(e.buffer(), 0, e.size(), java.nio.charset.StandardCharsets.US_ASCII);
        assertEquals("1,22,\"" + "x".repeat(100) + "\"", all);
        assertEquals(",\"" + "x".repeat(100) + "\"", e.toString(), "the last event, behind its comma");
    }
}
