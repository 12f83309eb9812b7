package org.flagos.trace.stages;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class MicrosFormatTest {
    private final MicrosFormat f = new MicrosFormat();

    @Test
    void alwaysThreeDecimalsNoRounding() {
        assertEquals("0.000", f.format(0).toString());
        assertEquals("0.001", f.format(1).toString());
        assertEquals("1.000", f.format(1_000).toString());
        assertEquals("12.345", f.format(12_345).toString());
        assertEquals("5124820244963.144", f.format(5_124_820_244_963_144L).toString());
        assertEquals("-0.250", f.format(-250).toString());
        assertEquals("-1.500", f.format(-1_500).toString());
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
    void eventBytesWriteTheSameDigitsAsTheReferenceFormatter() {
        java.util.Random random = new java.util.Random(3);
        for (int i = 0; i < 100_000; i++) {
            long nanos = switch (i % 4) {
                case 0 -> random.nextInt(10_000) - 5_000;
                case 1 -> random.nextLong() >> 8;
                case 2 -> 1_795_982_695_163_980_562L - 1_795_982_000_000_000_000L + random.nextInt(1 << 30);
                default -> random.nextInt();
            };
            EventBytes e = new EventBytes().reset().micros(nanos);
            assertEquals(new MicrosFormat().format(nanos).toString(), e.toString(), Long.toString(nanos));
            assertEquals(Long.toString(nanos), new EventBytes().reset().number(nanos).toString());
        }
        assertEquals(Long.toString(Long.MIN_VALUE), new EventBytes().reset().number(Long.MIN_VALUE).toString());
    }
}
