package org.flagos.trace.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** A merge moves {@code ts} exactly, in whatever form a trace writes it. */
class TimestampsTest {
    @Test
    void commonFormIsMovedInWholeNanoseconds() {
        assertEquals("1001.500", Timestamps.shift("1000.25", 1_250));
        assertEquals("12", Timestamps.shift("10", 2_000));
        assertEquals("-0.001", Timestamps.shift("0", -1));
        assertEquals("-1.500", Timestamps.shift("-1", -500));
        assertEquals("1795982694123456.789", Timestamps.shift("123456.789", 1_795_982_694_000_000_000L));
    }

    @Test
    void otherFormsAreMovedInDecimalArithmetic() {
        assertEquals("1000.0004", Timestamps.shift("1000.0004", 0), "more than three decimals are kept");
        assertEquals("1000.0014", Timestamps.shift("1000.0004", 1));
        assertEquals("1500", Timestamps.shift("1e3", 500_000));
        assertEquals("1000000000000000001", Timestamps.shift("1000000000000000000", 1_000));
    }

    /**
     * Digits far below a nanosecond (an exponent a fuzzed trace had: {@code 1e-100000098}) are not written out: past
     * {@link Timestamps#MAX_DECIMALS} decimals the time is moved as every reader reads it, rounded to the nanosecond.
     * Exactly, {@code 1e-100000} moved by 1 ns was 100,003 characters, {@code 1e-100000098} minutes of BigInteger work.
     */
    @Test
    void digitsFarBelowANanosecondAreRoundedNotWrittenOut() {
        assertEquals("0.001" + "0".repeat(96) + "1", Timestamps.shift("1e-100", 1), "100 decimals: kept exactly");
        assertEquals("0.001", Timestamps.shift("1e-101", 1));
        assertEquals("0.001", Timestamps.shift("1e-100000", 1));
        assertEquals("1000", Timestamps.shift("1795982691e-100000098", 1_000_000));
        assertEquals("1000.001", Timestamps.shift("1000.0005" + "0".repeat(100) + "1", 0), "above the half: up");
        assertEquals("1000", Timestamps.shift("1000.0005" + "0".repeat(100), 0), "the half: to the even");
        assertEquals("1000000000000000", Timestamps.shift("1e15", 0));
        assertThrows(ArithmeticException.class, () -> Timestamps.shift("1e100000098", 0), "refused, not written out");
    }
}
