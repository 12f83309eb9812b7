package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The external sort against a plain in-memory sort of the same records, spilled or not. */
class RecordSorterTest {
    @TempDir
    Path dir;

    /** Records of 3 longs, ordered by the first 2; the third is the record's number, to check stability. */
    static List<long[]> records(int n, long seed) {
        Random r = new Random(seed);
        List<long[]> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new long[] {r.nextInt(50) - 25, r.nextBoolean() ? Long.MIN_VALUE : r.nextLong() % 7, i});
        }
        return out;
    }

    void check(int n, int bufferLongs, boolean expectSpill) throws Exception {
        List<long[]> input = records(n, n * 31L + bufferLongs);
        List<long[]> expected = new ArrayList<>(input);
        expected.sort(Comparator.<long[]>comparingLong(a -> a[0]).thenComparingLong(a -> a[1])); // stable: ties keep input order
        SpillCounter counter = new SpillCounter();
        Path spill = Files.createDirectories(dir.resolve("spill-" + n + "-" + bufferLongs));
        try (RecordSorter sorter = new RecordSorter(3, 2, bufferLongs, spill, counter)) {
            for (long[] rec : input) {
                sorter.add(rec);
            }
            assertEquals(n, sorter.size());
            for (int pass = 0; pass < 2; pass++) { // read twice: the summary does when a trace has overhead events
                RecordSorter.Cursor c = sorter.sorted();
                long[] got = new long[3];
                for (long[] want : expected) {
                    assertTrue(c.next(got));
                    assertArrayEquals(want, got);
                }
                assertFalse(c.next(got));
            }
        }
        assertEquals(expectSpill, counter.bytes() > 0);
        if (expectSpill) {
            assertEquals((long) n * 3 * Long.BYTES, counter.bytes(), "each record written once");
        }
        try (Stream<Path> left = Files.list(spill)) {
            assertEquals(0, left.count(), "no run left behind");
        }
    }

    @Test
    void inMemory() throws Exception {
        check(1000, 3 * 1000, false);
        check(0, 30, false);
    }

    @Test
    void throughManyRuns() throws Exception {
        check(1000, 3 * 7, true);
        check(20_000, 3 * 1024, true);
        check(5, 3, true);
    }
}
