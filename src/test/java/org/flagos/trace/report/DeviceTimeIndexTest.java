package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link DeviceTimeIndex}: each External id's device time found by binary search, the same whether the table stayed
 * on the heap or moved to its memory-mapped file; an id no device event carries reads 0; the file is counted as
 * spilled and deleted at close.
 */
class DeviceTimeIndexTest {
    @TempDir
    Path dir;

    /** Ids 3, 6, 9, ... (every third, with negative and 64-bit ones) and a time from each. */
    private static long id(int i) {
        return i == 0 ? Long.MIN_VALUE + 1 : i == 1 ? -5 : 3L * i + (i > 900 ? Long.MAX_VALUE / 2 : 0);
    }

    private void fillAndCheck(int inMemory, int n) throws Exception {
        SpillCounter spilled = new SpillCounter();
        try (DeviceTimeIndex index = new DeviceTimeIndex(dir, spilled, inMemory)) {
            for (int i = 0; i < n; i++) {
                index.append(id(i), i * 1.5 + 0.25);
            }
            index.finish();
            for (int i = 0; i < n; i++) {
                assertEquals(i * 1.5 + 0.25, index.get(id(i)), 0.0, "id " + id(i));
            }
            assertEquals(0.0, index.get(4), 0.0, "an id between two");
            assertEquals(0.0, index.get(Long.MIN_VALUE), 0.0, "below every id");
            assertEquals(0.0, index.get(Long.MAX_VALUE), 0.0, "above every id");
            if (n > inMemory) {
                assertEquals(16L * n, spilled.bytes(), "16 bytes an id, counted");
                try (Stream<Path> files = Files.list(dir)) {
                    assertEquals(1, files.filter(p -> p.getFileName().toString().startsWith("flagtrace-device-")).count());
                }
            } else {
                assertEquals(0, spilled.bytes());
            }
        }
        try (Stream<Path> files = Files.list(dir)) {
            assertTrue(files.noneMatch(p -> p.getFileName().toString().startsWith("flagtrace-device-")), "deleted at close");
        }
    }

    @Test
    void onTheHeap() throws Exception {
        fillAndCheck(DeviceTimeIndex.IN_MEMORY, 2000); // past the first array's 1024: the arrays grow
    }

    @Test
    void inItsFile() throws Exception {
        fillAndCheck(100, 2000);
    }

    @Test
    void empty() throws Exception {
        fillAndCheck(100, 0);
    }
}
