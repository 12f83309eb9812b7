package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

/** {@link CorrelationId} prints its 64 bits unsigned, as vendors' u64 ids are. */
class CorrelationIdTest {
    @Test
    void printsUnsigned() {
        assertEquals("CorrelationId[0]", new CorrelationId(0).toString());
        assertEquals("CorrelationId[4294967295]", new CorrelationId(0xFFFF_FFFFL).toString());
        assertEquals("CorrelationId[18446744073709551615]", new CorrelationId(-1).toString());
        assertEquals("CorrelationId[9223372036854775808]", new CorrelationId(Long.MIN_VALUE).toString());
        assertEquals(new CorrelationId(-1), new CorrelationId(-1));
        assertNotEquals(new CorrelationId(1), new CorrelationId(-1));
    }
}
