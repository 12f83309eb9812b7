package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link KeyAveragesBuilder} sums each row as its results come while they come in time order, and sums again, from
 * a sort of their results, only the rows one of whose results came out of that order: the sums are torch's (each
 * row's results added in time order) either way, bit for bit. Each hand-made trace below brings one row's results
 * out of time order, with times whose sum depends on the order they are added in; the real traces are summed both
 * ways (every row through the sort, and as they come), in memory and through the disk.
 */
class KeyAveragesInArrivalOrderTest {
    @TempDir
    Path dir;

    /** A result's time as torch takes it (microseconds from the profile's start, origin 0). */
    private static double us(long startNs, long durNs) {
        return (startNs + durNs) / 1000.0 - startNs / 1000.0;
    }

    interface Fixture {
        void add(KeyAveragesBuilder b) throws Exception;
    }

    /** The table of {@code f}: buffers of the default size or 2 records, every row summed through the sort or not. */
    private Table table(Fixture f, boolean tiny, boolean everyRowSorted) throws Exception {
        Path spill = Files.createTempDirectory(dir, "spill");
        try (KeyAveragesBuilder b = tiny ? new KeyAveragesBuilder(spill, 2 * KeyAveragesBuilder.RESULT_WIDTH, 2) : new KeyAveragesBuilder(spill)) {
            b.resumEveryRow = everyRowSorted;
            f.add(b);
            KeyAverages a = b.build(0, true, new DeviceStreams[1]);
            assertEquals(tiny, b.spilledBytes() > 0);
            return new Table(a.rows(), b.markedRows);
        }
    }

    record Table(List<KeyAveragesRow> rows, int marked) {
    }

    private void check(Fixture f, int marked, KeyAveragesRow want) throws Exception {
        Table a = table(f, false, false);
        assertTrue(a.rows().contains(want), a.rows() + " holds " + want);
        assertEquals(marked, a.marked(), "rows summed again");
        for (boolean tiny : new boolean[] {false, true}) {
            assertEquals(a.rows(), table(f, tiny, true).rows(), "every row through the sort");
            assertEquals(a, table(f, tiny, false), "through the disk");
        }
    }

    @Test
    void nestedOpsOfOneNameCloseInnermostFirst() throws Exception {
        // X [0, 700) holds X [100, 400), which holds X [200, 219): they close (and their results come) inner first
        Fixture f = b -> {
            b.add(EventClass.HOST_OP, "X", "1", "11", 0, 700, KeyAveragesBuilder.NO_LINK);
            b.add(EventClass.HOST_OP, "X", "1", "11", 100, 300, KeyAveragesBuilder.NO_LINK);
            b.add(EventClass.HOST_OP, "X", "1", "11", 200, 19, KeyAveragesBuilder.NO_LINK);
            b.add(EventClass.HOST_OP, "Y", "1", "11", 800, 10, KeyAveragesBuilder.NO_LINK);
        };
        double total = us(0, 700) + us(100, 300) + us(200, 19);
        assertTrue(total != us(200, 19) + us(100, 300) + us(0, 700), "the order the results come in would give other bits");
        double self = Math.max(0, us(0, 700) - us(100, 300)) + Math.max(0, us(100, 300) - us(200, 19)) + us(200, 19);
        check(f, 1, new KeyAveragesRow("X", false, 3, self, total, 0, 0));
    }

    @Test
    void oneNameOnTwoThreads() throws Exception {
        // thread 11's X at 300 and 400 come first (its thread is summed first), thread 12's X at 0 after them
        Fixture f = b -> {
            b.add(EventClass.HOST_OP, "X", "1", "11", 300, 10, KeyAveragesBuilder.NO_LINK);
            b.add(EventClass.HOST_OP, "X", "1", "11", 400, 43, KeyAveragesBuilder.NO_LINK);
            b.add(EventClass.HOST_OP, "X", "1", "12", 0, 10, KeyAveragesBuilder.NO_LINK);
        };
        double total = us(0, 10) + us(300, 10) + us(400, 43);
        assertTrue(total != us(300, 10) + us(400, 43) + us(0, 10));
        check(f, 1, new KeyAveragesRow("X", false, 3, total, total, 0, 0));
    }

    @Test
    void deviceWorkWhoseExternalIdsAreNotInTimeOrder() throws Exception {
        // K at 0 (External id 3), at 100 (id 1), at 200 (id 2): they come by id; an op launches each
        Fixture f = b -> {
            for (long id = 1; id <= 3; id++) {
                b.add(EventClass.HOST_OP, "op", "1", "11", 1000 * id, 10, id);
            }
            b.add(EventClass.DEVICE, "K", "0", "7", 0, 10, 3);
            b.add(EventClass.DEVICE, "K", "0", "7", 100, 21, 1);
            b.add(EventClass.DEVICE, "K", "0", "7", 200, 34, 2);
        };
        double total = us(0, 10) + us(100, 21) + us(200, 34);
        assertTrue(total != us(100, 21) + us(200, 34) + us(0, 10));
        check(f, 1, new KeyAveragesRow("K", true, 3, 0, 0, total, total));
    }

    /** The real traces: torch's own (H200, HTA's, the torch reference table's), each row through the sort or not. */
    @Test
    void realTracesGiveTheSameTableEitherWay() throws Exception {
        List<Path> traces = List.of(TorchKeyAveragesTest.resource("torch_trace.json"),
                Captures.dir().resolve("h200-java-steps/h200-java-steps.torch.pt.trace.json.gz"),
                Captures.dir().resolve("h200-kinds/h200-kinds.torch.pt.trace.json.gz"),
                Path.of(getClass().getResource("/hta/nccl_data.json.gz").toURI()),
                Path.of(getClass().getResource("/hta/sampled_rank-1.json.gz").toURI()),
                Path.of(getClass().getResource("/hta/cpu_only_rank-34.json.gz").toURI()));
        for (Path trace : traces) {
            KeyAverages asTheyCome = read(trace, false, false);
            assertTrue(asTheyCome.rows().size() > 1, trace.toString());
            assertEquals(asTheyCome.rows(), read(trace, false, true).rows(), trace + ": every row through the sort");
            assertEquals(asTheyCome.rows(), read(trace, true, true).rows(), trace + ": every row through the sort, through the disk");
            assertEquals(asTheyCome.rows(), read(trace, true, false).rows(), trace + ": through the disk");
        }
    }

    private KeyAverages read(Path trace, boolean tiny, boolean everyRowSorted) throws Exception {
        Path spill = Files.createTempDirectory(dir, "spill");
        KeyAveragesBuilder b = tiny ? new KeyAveragesBuilder(spill, 8 * KeyAveragesBuilder.RESULT_WIDTH, 2) : new KeyAveragesBuilder(spill);
        b.resumEveryRow = everyRowSorted;
        KeyAverages a = TraceFile.read(trace, TraceFile.DEFAULT_MAX_EVENTS, b).averages();
        try (Stream<Path> left = Files.list(spill)) {
            assertEquals(0, left.count(), "no file left behind");
        }
        return a;
    }
}
