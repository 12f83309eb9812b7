package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** {@link NameTable}: one dense id per distinct name, from 0, the same from every thread. */
class NameTableTest {
    @Test
    void idsAreDenseFromZeroAndStable() {
        NameTable t = new NameTable();
        assertEquals(0, t.intern("a"));
        assertEquals(1, t.intern("b"));
        assertEquals(0, t.intern("a"));
        assertEquals(2, t.intern(""));
        assertEquals(3, t.size());
        assertEquals("b", t.name(1));
        assertEquals("", t.name(2));
    }

    @Test
    void threadsInterningTogetherGetOneIdPerName() throws Exception {
        NameTable t = new NameTable();
        ConcurrentHashMap<String, Set<Integer>> seen = new ConcurrentHashMap<>();
        List<Thread> threads = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            Thread th = new Thread(() -> {
                for (int i = 0; i < 2_000; i++) {
                    String n = "kernel_" + (i % 500);
                    seen.computeIfAbsent(n, x -> ConcurrentHashMap.newKeySet()).add(t.intern(n));
                }
            });
            threads.add(th);
            th.start();
        }
        for (Thread th : threads) {
            th.join();
        }
        assertEquals(500, t.size());
        Set<Integer> ids = new HashSet<>();
        for (var e : seen.entrySet()) {
            assertEquals(1, e.getValue().size(), e.getKey() + " got ids " + e.getValue());
            int id = e.getValue().iterator().next();
            assertEquals(e.getKey(), t.name(id));
            ids.add(id);
        }
        assertEquals(500, ids.size());
    }
}
