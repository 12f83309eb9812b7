package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.flagos.trace.model.DeviceTracer;
import org.flagos.trace.testing.ProgramRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Profiler}'s contract: one tracer per process, chosen by the first {@code init}, whichever thread makes it;
 * the line saying why there is no device activity printed once, and never when the first call was
 * {@code initQuietly}. Each case runs in a fresh process, since the choice is made once per JVM.
 */
class ProfilerTest {
    @TempDir
    Path dir;

    /** 8 threads call {@code init()} at once, then once more: prints whether all got one tracer, and whether it is available. */
    static final class ManyFirstInits {
        public static void main(String[] args) throws InterruptedException {
            int threads = 8;
            AtomicReferenceArray<DeviceTracer> got = new AtomicReferenceArray<>(threads);
            CountDownLatch go = new CountDownLatch(1);
            Thread[] workers = new Thread[threads];
            for (int i = 0; i < threads; i++) {
                int slot = i;
                workers[i] = new Thread(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    got.set(slot, Profiler.init());
                });
                workers[i].start();
            }
            go.countDown();
            for (Thread worker : workers) {
                worker.join();
            }
            boolean same = Profiler.init() == got.get(0);
            for (int i = 1; i < threads; i++) {
                same &= got.get(i) == got.get(0);
            }
            System.out.println("same=" + same + " available=" + got.get(0).available());
        }
    }

    /** {@code initQuietly()} first, then {@code init()}: prints whether both gave one tracer. */
    static final class QuietFirst {
        public static void main(String[] args) {
            DeviceTracer quiet = Profiler.initQuietly();
            System.out.println("same=" + (Profiler.init() == quiet) + " available=" + quiet.available());
        }
    }

    @Test
    void withoutAGpuTheTracerIsUnavailableAndSaysWhyOnceWhateverTheThreads() throws Exception {
        DeviceTracer tracer = Profiler.initQuietly();
        assumeFalse(tracer.available(), "this machine has a usable GPU");
        assertFalse(tracer.unavailableReason().isBlank());
        assertFalse(tracer.unavailableReason().contains("\n"), "one line");
        assertEquals(0, tracer.deviceCount());
        ProgramRun run = ProgramRun.start(dir, List.of(), ManyFirstInits.class.getName());
        assertEquals(0, run.finish(), run.stderr());
        assertEquals("same=true available=false\n", run.stdout());
        String said = run.stderr();
        assertEquals(1, said.lines().count(), "Profiler.init() says why in one line, once: " + said);
        assertTrue(said.startsWith("flagtrace: no device activity") && said.contains("CPU-side profiling continues"), said);
        run.clean();
    }

    @Test
    void aQuietFirstInitLeavesNothingToSayLater() throws Exception {
        assumeFalse(Profiler.initQuietly().available(), "this machine has a usable GPU");
        ProgramRun run = ProgramRun.start(dir, List.of(), QuietFirst.class.getName());
        assertEquals(0, run.finish(), run.stderr());
        assertEquals("same=true available=false\n", run.stdout());
        assertEquals("", run.stderr(), "the caller of initQuietly reports it itself; a later init adds nothing");
        run.clean();
    }
}
