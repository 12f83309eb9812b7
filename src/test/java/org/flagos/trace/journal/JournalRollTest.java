package org.flagos.trace.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link JournalRoll}: exactly the five spellings the CLI documents parse, each to a cycle of the length it says
 * (Chronicle's roll cycles), and anything else is refused with the list of what is accepted.
 */
class JournalRollTest {
    @Test
    void eachSpecParsesToACycleOfItsLength() {
        Map<String, Long> millis = new LinkedHashMap<>();
        millis.put("1s", 1_000L);
        millis.put("5m", 300_000L);
        millis.put("10m", 600_000L);
        millis.put("1h", 3_600_000L);
        millis.put("1d", 86_400_000L);
        for (Map.Entry<String, Long> e : millis.entrySet()) {
            JournalRoll roll = JournalRoll.parse(e.getKey());
            assertEquals(e.getKey(), roll.spec());
            assertEquals(e.getValue(), roll.millis(), e.getKey());
            assertEquals(roll.millis(), roll.cycle().lengthInMillis(), e.getKey());
        }
        assertEquals(5, JournalRoll.values().length, "every roll has a spec above");
    }

    @Test
    void otherSpellingsAreRefusedInWords() {
        for (String spec : new String[] {"1H", "60m", "1 h", "", "hour", "HOUR"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> JournalRoll.parse(spec), spec);
            assertEquals("roll '" + spec + "' is not one of 1s, 5m, 10m, 1h, 1d", e.getMessage());
        }
        assertEquals("roll 'null' is not one of 1s, 5m, 10m, 1h, 1d",
                assertThrows(IllegalArgumentException.class, () -> JournalRoll.parse(null)).getMessage());
    }
}
