package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Paged and hashed ids behave alike, against {@link HashMap}, across growth of both parts. */
class DenseLongTableTest {
    @Test
    void behavesLikeAHashMapForDenseAndScatteredIds() {
        Random random = new Random(11);
        DenseLongTable table = new DenseLongTable();
        Map<Long, Long> reference = new HashMap<>();
        for (int step = 0; step < 100_000; step++) {
            long id = switch (random.nextInt(3)) {
                case 0 -> random.nextInt(20_000);
                case 1 -> DenseLongTable.DENSE_IDS + random.nextInt(5_000);
                default -> random.nextLong();
            };
            long value = random.nextInt(1_000_000);
            if (random.nextBoolean()) {
                boolean absent = !reference.containsKey(id);
                assertEquals(absent, table.putIfAbsent(id, value));
                reference.putIfAbsent(id, value);
            } else {
                table.add(id, value);
                reference.merge(id, value, Long::sum);
            }
            long probe = random.nextBoolean() ? id : random.nextLong();
            assertEquals(reference.getOrDefault(probe, -5L), table.get(probe, -5L));
            assertEquals(reference.containsKey(probe), table.contains(probe));
        }
        assertEquals(reference.size(), table.size());
    }
}
