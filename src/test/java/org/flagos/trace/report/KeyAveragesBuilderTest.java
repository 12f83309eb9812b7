package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link KeyAveragesBuilder} on a small hand-made trace whose table is worked out by hand from the rule
 * (self CPU = duration less the children's union; an op's device time by its External id, its total adding
 * its children's), in memory and through the disk with the smallest buffers.
 */
class KeyAveragesBuilderTest {
    @TempDir
    Path dir;

    private static final long US = 1000;

    /** outer [0, 100] (External id 1) holds a launch [10, 20] and inner [30, 70] (id 2), which holds a launch [40, 45];
     * the device runs k for id 1 [200, 250] and k for id 2 [300, 310]; a second thread runs outer [5, 8] (id 3, no device work). */
    private static void addTrace(KeyAveragesBuilder b) throws Exception {
        b.add(EventClass.HOST_OP, "outer", "1", "11", 0, 100 * US, 1);
        b.add(EventClass.RUNTIME, "cudaLaunchKernel", "1", "11", 10 * US, 10 * US, 1);
        b.add(EventClass.HOST_OP, "inner", "1", "11", 30 * US, 40 * US, 2);
        b.add(EventClass.RUNTIME, "cudaLaunchKernel", "1", "11", 40 * US, 5 * US, 2);
        b.add(EventClass.DEVICE, "k", "0", "stream 7", 300 * US, 10 * US, 2); // device order is not host order
        b.add(EventClass.DEVICE, "k", "0", "stream 7", 200 * US, 50 * US, 1);
        b.add(EventClass.HOST_OP, "outer", "1", "12", 5 * US, 3 * US, 3);
    }

    private static void assertTable(KeyAverages a) {
        List<KeyAveragesRow> want = List.of(
                new KeyAveragesRow("outer", false, 2, 50 + 3, 100 + 3, 50, 60),
                new KeyAveragesRow("cudaLaunchKernel", false, 2, 15, 15, 0, 0),
                new KeyAveragesRow("inner", false, 1, 35, 40, 10, 10),
                new KeyAveragesRow("k", true, 2, 0, 0, 60, 60));
        assertEquals(want, a.rows());
    }

    @Test
    void theHandWorkedTableInMemory() throws Exception {
        try (KeyAveragesBuilder b = new KeyAveragesBuilder(dir)) {
            addTrace(b);
            assertEquals(7, b.events());
            DeviceStreams[] streams = new DeviceStreams[1];
            KeyAverages a = b.build(0, true, streams);
            assertTable(a);
            assertEquals("CUDA", a.deviceLabel());
            assertEquals(1, streams[0].streams().size());
            assertEquals(60 * US, streams[0].streams().get(0).totalNs());
            assertEquals(0, b.spilledBytes());
        }
    }

    @Test
    void theSameTableThroughTheDiskAndNoFileLeft() throws Exception {
        Path spill = Files.createDirectory(dir.resolve("spill"));
        try (KeyAveragesBuilder b = new KeyAveragesBuilder(spill, 2 * KeyAveragesBuilder.RESULT_WIDTH, 1)) {
            addTrace(b);
            KeyAverages a = b.build(0, false, new DeviceStreams[1]);
            assertTable(a);
            assertEquals("device", a.deviceLabel());
            assertTrue(b.spilledBytes() > 0, "the tiny buffers spilled");
        }
        try (Stream<Path> left = Files.list(spill)) {
            assertEquals(0, left.count());
        }
    }

    @Test
    void rowKeysAndLimitMessages() {
        assertEquals(0, KeyAveragesBuilder.hostRowKey(0));
        assertEquals(14, KeyAveragesBuilder.hostRowKey(7));
        assertTrue(KeyAveragesBuilder.tooManyNames().getMessage().contains("more than 524288 distinct event names"));
        assertTrue(KeyAveragesBuilder.tooDeep().getMessage().contains("more than 65536 deep on one thread"));
    }
}
