package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@link ExternalId}: 0 and every non-negative id are valid; a negative one is refused with its value named. */
class ExternalIdTest {
    @Test
    void zeroAndMaxAreValidANegativeIsRefused() {
        assertEquals(0, new ExternalId(0).value());
        assertEquals(Long.MAX_VALUE, new ExternalId(Long.MAX_VALUE).value());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ExternalId(-1));
        assertTrue(e.getMessage().contains("non-negative: -1"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new ExternalId(Long.MIN_VALUE));
    }
}
