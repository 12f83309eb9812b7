package org.flagos.trace.stages;

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
}
