package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class NearbyKeyMapTest {
    private static final long MISSING = Long.MIN_VALUE;

    /** Random puts, gets and removes against a HashMap, for keys drawn in several shapes. */
    @Test
    void agreesWithAHashMap() {
        for (int shape = 0; shape < 4; shape++) {
            SplittableRandom random = new SplittableRandom(shape);
            NearbyKeyMap map = new NearbyKeyMap(4, MISSING);
            Map<Long, Long> reference = new HashMap<>();
            long next = 1_000;
            for (int op = 0; op < 200_000; op++) {
                long key;
                switch (shape) {
                    case 0: key = next + random.nextInt(-300, 300); break;            // nearly in sequence
                    case 1: key = random.nextLong(); break;                           // anything
                    case 2: key = ((long) random.nextInt(8) << 40) | random.nextInt(5_000); break; // id space per device
                    default: key = (long) random.nextInt(2_000) << 20; break;          // differ above the table only
                }
                next++;
                int what = random.nextInt(10);
                if (what < 5) {
                    long value = random.nextLong(0, Long.MAX_VALUE);
                    Long old = reference.put(key, value);
                    assertEquals(old == null ? MISSING : old, map.put(key, value));
                } else if (what < 8) {
                    Long old = reference.remove(key);
                    assertEquals(old == null ? MISSING : old, map.remove(key));
                } else {
                    Long value = reference.get(key);
                    assertEquals(value == null ? MISSING : value, map.get(key));
                }
                assertEquals(reference.size(), map.size());
            }
            for (Map.Entry<Long, Long> e : reference.entrySet()) {
                assertEquals(e.getValue(), map.get(e.getKey()));
            }
            map.clear();
            assertEquals(0, map.size());
            for (Long key : reference.keySet()) {
                assertEquals(MISSING, map.get(key));
            }
        }
    }

    @Test
    void aZeroMissingValueWorksToo() {
        NearbyKeyMap map = new NearbyKeyMap(2, 0);
        for (long k = -50; k < 50; k++) {
            map.put(k, k + 1_000);
        }
        for (long k = -50; k < 50; k++) {
            assertEquals(k + 1_000, map.get(k));
        }
        assertEquals(0, map.get(500));
        assertThrows(IllegalArgumentException.class, () -> map.put(1, 0));
    }
}
