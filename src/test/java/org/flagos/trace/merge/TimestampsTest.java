package org.flagos.trace.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
