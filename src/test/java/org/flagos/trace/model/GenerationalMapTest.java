package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class GenerationalMapTest {
    private static final long MISSING = Long.MIN_VALUE;

    /** The young generation fills, the old one is dropped (counted), and lookups see both generations. */
    @Test
    void turnsGenerationsOverAndCountsWhatItForgets() {
        GenerationalMap map = new GenerationalMap(3, MISSING);
        for (long k = 1; k <= 3; k++) {
            map.put(k, k * 10);
        }
        assertEquals(3, map.size());
        map.put(4, 40); // young full: it becomes the old generation, nothing forgotten yet
        assertEquals(0, map.forgotten());
        assertEquals(4, map.size());
        for (long k = 1; k <= 4; k++) {
            assertEquals(k * 10, map.get(k), "key " + k + " across the boundary");
        }
        map.put(5, 50);
        map.put(6, 60);
        map.put(7, 70); // young {4,5,6} full: old {1,2,3} forgotten
        assertEquals(3, map.forgotten());
        assertEquals(MISSING, map.get(1));
        assertEquals(MISSING, map.get(3));
        assertEquals(40, map.get(4));
        assertEquals(70, map.get(7));
        assertEquals(4, map.size());
    }

    /** put: the newest value wins, in whichever generation the key lives, and a key is never held twice. */
    @Test
    void putOverwritesInEitherGeneration() {
        GenerationalMap map = new GenerationalMap(2, MISSING);
        map.put(1, 10);
        map.put(2, 20);
        map.put(3, 30); // old {1,2}, young {3}
        map.put(1, 11); // from the old generation to the young one
        assertEquals(11, map.get(1));
        assertEquals(3, map.size(), "the old copy was removed");
        map.put(1, 12); // young, not full-making: no turnover
        assertEquals(12, map.get(1));
        assertEquals(0, map.forgotten());
        map.put(4, 40); // young {3,1} full: old {2} forgotten
        assertEquals(1, map.forgotten());
        assertEquals(MISSING, map.get(2));
        assertEquals(12, map.get(1));
    }

    /** putIfAbsent: the first value wins while the key is remembered, also from the old generation. */
    @Test
    void putIfAbsentKeepsTheFirstValueAcrossTheBoundary() {
        GenerationalMap map = new GenerationalMap(2, MISSING);
        assertTrue(map.putIfAbsent(7, 70));
        assertFalse(map.putIfAbsent(7, 71));
        assertTrue(map.putIfAbsent(8, 80));
        assertTrue(map.putIfAbsent(9, 90)); // 7 and 8 now old
        assertFalse(map.putIfAbsent(7, 72), "known in the old generation");
        assertEquals(70, map.get(7));
        assertTrue(map.putIfAbsent(10, 100));
        assertTrue(map.putIfAbsent(11, 110)); // old {7,8} forgotten
        assertEquals(2, map.forgotten());
        assertTrue(map.putIfAbsent(7, 73), "forgotten, so bound afresh");
        assertEquals(73, map.get(7));
    }

    /**
     * Against a reference model over random keys: each of the last {@code generation} distinct keys
     * put is known with its newest value; memory never exceeds two generations; every key that left
     * is counted once.
     */
    @Test
    void remembersAtLeastOneGenerationAndHoldsAtMostTwo() {
        int generation = 64;
        SplittableRandom random = new SplittableRandom(30);
        GenerationalMap map = new GenerationalMap(generation, MISSING);
        Map<Long, Long> newest = new HashMap<>();
        LinkedHashSet<Long> byLastPut = new LinkedHashSet<>();
        long newKeys = 0;
        for (int i = 0; i < 20_000; i++) {
            long key = random.nextInt(4) == 0 ? random.nextLong() : random.nextLong(600); // nearby ids and scattered ones
            long value = random.nextLong(1L << 40);
            if (map.get(key) == MISSING) {
                newKeys++;
            }
            map.put(key, value);
            newest.put(key, value);
            byLastPut.remove(key);
            byLastPut.add(key);
            assertTrue(map.size() <= 2 * generation, "bounded: " + map.size());
            List<Long> keys = new ArrayList<>(byLastPut);
            for (long recent : keys.subList(Math.max(0, keys.size() - generation), keys.size())) {
                assertEquals(newest.get(recent), map.get(recent), "key " + recent + " put within a generation");
            }
        }
        assertEquals(newKeys, map.forgotten() + map.size(), "every key is held or counted as forgotten once");
    }

    @Test
    void refusesAnEmptyGenerationAndTheMissingValue() {
        assertThrows(IllegalArgumentException.class, () -> new GenerationalMap(0, MISSING));
        GenerationalMap map = new GenerationalMap(4, 0);
        assertThrows(IllegalArgumentException.class, () -> map.put(1, 0));
    }
}
