package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The adapter against {@link HashMap} as the reference, over every kind of key a record can carry. */
class LongIntHashMapTest {
    @Test
    void behavesLikeAHashMapForAnyLongKey() {
        Random random = new Random(7);
        long[] special = {-1L, 0L, Long.MIN_VALUE, Long.MAX_VALUE, 0x8000_0000_0000_1234L, 0xFFFF_FFFFL, 1L << 32};
        LongIntHashMap map = new LongIntHashMap(4, -7);
        Map<Long, Integer> reference = new HashMap<>();
        for (int step = 0; step < 200_000; step++) {
            long key = random.nextInt(4) == 0 ? special[random.nextInt(special.length)]
                    : random.nextBoolean() ? random.nextInt(5_000) : random.nextLong();
            switch (random.nextInt(3)) {
                case 0: {
                    int value = random.nextInt(1_000);
                    Integer old = reference.put(key, value);
                    assertEquals(old == null ? -7 : old, map.put(key, value));
                    break;
                }
                case 1: {
                    Integer old = reference.remove(key);
                    assertEquals(old == null ? -7 : old, map.remove(key));
                    break;
                }
                default:
                    assertEquals(reference.getOrDefault(key, -7), map.get(key));
            }
            assertEquals(reference.size(), map.size());
        }
        Map<Long, Integer> visited = new HashMap<>();
        map.forEach(visited::put);
        assertEquals(reference, visited);
    }
}
