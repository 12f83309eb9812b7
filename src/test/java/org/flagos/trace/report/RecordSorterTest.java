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
        SpillCounter counter = new SpillCounter();
        Path spill = Files.createDirectories(dir.resolve("spill-" + n + "-" + bufferLongs));
        sortChecked(input, bufferLongs, spill, counter);
        assertEquals(expectSpill, counter.bytes() > 0);
        if (expectSpill) {
            assertEquals((long) n * 3 * Long.BYTES, counter.bytes(), "each record written once");
        }
        try (Stream<Path> left = Files.list(spill)) {
            assertEquals(0, left.count(), "no run left behind");
        }
    }

    /** What a sort did: its main runs and their chains, its stragglers, their runs and chains, the buffers whose stragglers it sorted. */
    record Work(int runs, int chains, long stragglers, int strayRuns, int strayChains, int sorted) {
    }

    /**
     * Sorts {@code input} (records of 3 longs, keyed by 2, the third the record's number) in a sorter of
     * {@code bufferRecords} records and checks the stable order, read twice, and that no run is left.
     */
    Work sortChecked(List<long[]> input, int bufferRecords) throws Exception {
        Path spill = Files.createDirectories(dir.resolve("spill-" + input.size() + "-" + bufferRecords + "-" + System.nanoTime()));
        Work w = sortChecked(input, 3 * bufferRecords, spill, new SpillCounter());
        try (Stream<Path> left = Files.list(spill)) {
            assertEquals(0, left.count(), "no run left behind");
        }
        return w;
    }

    /** {@code input} sorted in a sorter of {@code bufferLongs}, read twice in the stable order (ties keep input order). */
    static Work sortChecked(List<long[]> input, int bufferLongs, Path spill, SpillCounter counter) throws Exception {
        List<long[]> expected = new ArrayList<>(input);
        expected.sort(Comparator.<long[]>comparingLong(a -> a[0]).thenComparingLong(a -> a[1]));
        try (RecordSorter sorter = new RecordSorter(3, 2, bufferLongs, spill, counter)) {
            for (long[] rec : input) {
                sorter.add(rec);
            }
            assertEquals(input.size(), sorter.size());
            for (int pass = 0; pass < 2; pass++) { // read twice: the summary does (overhead events, marked rows)
                RecordSorter.Cursor c = sorter.sorted();
                long[] got = new long[3];
                for (long[] want : expected) {
                    assertTrue(c.next(got));
                    assertArrayEquals(want, got);
                }
                assertFalse(c.next(got));
                assertFalse(c.next(got), "the end stays the end");
            }
            return new Work(sorter.runs(), sorter.mainChains(), sorter.stragglers(), sorter.strayRuns(), sorter.strayChains(),
                    sorter.sortedBuffers());
        }
    }

    static List<long[]> numbered(List<long[]> keys) {
        List<long[]> out = new ArrayList<>();
        for (long[] k : keys) {
            out.add(new long[] {k[0], k[1], out.size()});
        }
        return out;
    }

    @Test
    void inputInKeyOrderIsNeitherSortedNorMerged() throws Exception {
        List<long[]> keys = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            keys.add(new long[] {i / 10, i % 10 < 5 ? Long.MIN_VALUE : 7}); // runs of equal keys, across the runs' ends too
        }
        assertEquals(new Work(143, 1, 0, 0, 0, 0), sortChecked(numbered(keys), 7), "143 runs read as they stand, one after the other");
        assertEquals(new Work(0, 0, 0, 0, 0, 0), sortChecked(numbered(keys), 1000), "in memory, as it stands");
        assertEquals(new Work(1000, 1, 0, 0, 0, 0), sortChecked(numbered(keys), 1), "a record a run");
    }

    @Test
    void stragglersAreSortedApartAndMergedIn() throws Exception {
        // in order but for every 97th record, which goes 50 back: to a key a main record already has (that one first)
        List<long[]> keys = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            keys.add(i % 97 == 96 ? new long[] {i - 50, 0} : new long[] {i, 0});
        }
        assertEquals(new Work(100, 1, 10, 10, 1, 0), sortChecked(numbered(keys), 10),
                "each buffer a run of main records; those with a straggler a run of it too: in order, one chain");
        assertEquals(new Work(0, 0, 10, 0, 0, 0), sortChecked(numbered(keys), 1000), "in memory");
        // two threads taking turns, keyed by (thread, start): the second thread's records all straggle
        List<long[]> turns = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            turns.add(new long[] {i % 2 == 0 ? 1 : 0, i / 2});
        }
        assertEquals(new Work(50, 1, 500, 50, 1, 0), sortChecked(numbered(turns), 20), "each buffer 10 of each thread: one chain each");
    }

    @Test
    void straggledRunsThatFollowOnAreChainedAndOnlyChainsMerged() throws Exception {
        // after a first record above all others, every record straggles: three stretches in key order, the second and
        // third starting over below the first's end, in runs of 9 or 10: the two runs where a stretch starts over are
        // sorted, and the chains break there and after them (5 chains of 12 runs), each of whose keys equal keys of the
        // others (the merge keeps them in input order)
        List<long[]> keys = new ArrayList<>();
        keys.add(new long[] {1000, 0});
        for (int stretch = 0; stretch < 3; stretch++) {
            for (int i = 0; i < (stretch == 2 ? 30 : 40); i++) {
                keys.add(new long[] {i / 3 + stretch, i % 3});
            }
        }
        assertEquals(new Work(1, 1, 110, 12, 5, 2), sortChecked(numbered(keys), 10));
        // descending keys: every run of stragglers sorted (but the last, of one), and each its own chain
        List<long[]> down = new ArrayList<>();
        down.add(new long[] {1000, 0});
        for (int i = 0; i < 100; i++) {
            down.add(new long[] {-i / 2, 0});
        }
        assertEquals(new Work(1, 1, 100, 11, 11, 10), sortChecked(numbered(down), 10));
        // the same in order but for one record out of place: its run sorted, the chain broken before it only
        List<long[]> one = new ArrayList<>();
        one.add(new long[] {1000, 0});
        for (int i = 0; i < 100; i++) {
            one.add(i == 35 ? new long[] {5, 1} : new long[] {i, 0});
        }
        assertEquals(new Work(1, 1, 100, 11, 2, 1), sortChecked(numbered(one), 10));
    }

    @Test
    void randomInputInStretchesGivesTheStableOrder() throws Exception {
        Random r = new Random(7);
        for (int round = 0; round < 40; round++) { // stretches in order, shuffled stretches, equal keys: any mix
            List<long[]> keys = new ArrayList<>();
            long k = 0;
            while (keys.size() < 2000) {
                int len = 1 + r.nextInt(300);
                boolean ordered = r.nextBoolean();
                if (r.nextInt(4) == 0) {
                    k -= r.nextInt(100);
                }
                for (int i = 0; i < len; i++) {
                    k += ordered ? r.nextInt(2) : 0;
                    keys.add(new long[] {ordered ? k : k + r.nextInt(20) - 10, ordered ? 0 : r.nextInt(2)});
                }
            }
            sortChecked(numbered(keys), 4 + r.nextInt(200));
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
