package org.flagos.trace.vendors.cupti.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.flagos.trace.model.WorkloadFailedException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exchange workload's meetings between its two ranks (here two threads): they meet and pass
 * bytes; a peer that never comes, or that failed, ends the wait with one line instead of a hang; the
 * workload refuses to start without its rank, world size and folder.
 */
class FileBarrierTest {
    private static final long LONG = TimeUnit.SECONDS.toNanos(30);

    @TempDir
    Path dir;

    @Test
    void twoRanksMeetStepAfterStepAndPassTheirHandles() throws Exception {
        FileBarrier zero = new FileBarrier(dir, 0, 1, LONG);
        FileBarrier one = new FileBarrier(dir, 1, 0, LONG);
        CompletableFuture<byte[]> other = CompletableFuture.supplyAsync(() -> {
            one.publish("handle", new byte[] {1, 2, 3});
            byte[] got = one.receive("handle");
            for (int step = 0; step < 5; step++) {
                one.meet("step-" + step + ".ready");
            }
            return got;
        });
        zero.publish("handle", new byte[] {9, 8});
        assertArrayEquals(new byte[] {1, 2, 3}, zero.receive("handle"));
        for (int step = 0; step < 5; step++) {
            zero.meet("step-" + step + ".ready");
        }
        assertArrayEquals(new byte[] {9, 8}, other.get(30, TimeUnit.SECONDS));
        try (var files = Files.list(dir)) {
            assertTrue(files.noneMatch(f -> f.getFileName().toString().endsWith(".part")), "no half-written handle left");
        }
    }

    @Test
    void aPeerThatNeverComesEndsTheWaitWithOneLine() {
        FileBarrier alone = new FileBarrier(dir, 0, 1, TimeUnit.MILLISECONDS.toNanos(200));
        long start = System.nanoTime();
        WorkloadFailedException e = assertThrows(WorkloadFailedException.class, () -> alone.meet("step-3.ready"));
        assertTrue(System.nanoTime() - start < LONG);
        assertEquals(1, e.getMessage().lines().count());
        assertTrue(e.getMessage().startsWith("exchange: rank 0 waited 0.2 s for rank 1 at step-3.ready"), e.getMessage());
    }

    @Test
    void aPeerThatFailedEndsTheWaitAtOnce() {
        new FileBarrier(dir, 1, 0, LONG).fail();
        FileBarrier zero = new FileBarrier(dir, 0, 1, LONG);
        long start = System.nanoTime();
        WorkloadFailedException e = assertThrows(WorkloadFailedException.class, () -> zero.receive("handle"));
        assertTrue(System.nanoTime() - start < LONG / 2, "not at the timeout");
        assertEquals("exchange: rank 1 failed (its own output says why); rank 0 stops at handle", e.getMessage());
    }

    @Test
    void aFolderAnEarlierRunUsedIsRefused() throws Exception {
        Files.createFile(dir.resolve("step-0.ready.rank-0"));
        WorkloadFailedException e = assertThrows(WorkloadFailedException.class,
                () -> new FileBarrier(dir, 0, 1, LONG).meet("step-0.ready"));
        assertTrue(e.getMessage().endsWith("give each run a fresh one"), e.getMessage());
    }

    @Test
    void theWorkloadRefusesToRunWithoutTwoRanksAndAFolder() {
        for (Map<String, String> env : List.of(Map.<String, String>of(), Map.of("RANK", "0", "WORLD_SIZE", "4",
                ExchangeWorkload.DIR_ENV, dir.toString()), Map.of("RANK", "1", "WORLD_SIZE", "2"))) {
            WorkloadFailedException e = assertThrows(WorkloadFailedException.class, () -> new ExchangeWorkload(env).run(name -> () -> { }));
            assertTrue(e.getMessage().startsWith("workload exchange runs as one of two ranks"), e.getMessage());
        }
        WorkloadFailedException e = assertThrows(WorkloadFailedException.class, () -> new ExchangeWorkload(Map.of("RANK", "1",
                "WORLD_SIZE", "2", ExchangeWorkload.DIR_ENV, dir.resolve("absent").toString())).run(name -> () -> { }));
        assertTrue(e.getMessage().endsWith("is not a folder"), e.getMessage());
    }
}
