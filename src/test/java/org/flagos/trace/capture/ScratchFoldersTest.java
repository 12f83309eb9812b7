package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.flagos.trace.testing.ProgramRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link ScratchFolders}: removed whole, on SIGTERM too, and a dead process's removed by the next of its tag. */
class ScratchFoldersTest {
    @TempDir
    Path dir;

    private static List<String> named(Path folder, String prefix) throws IOException {
        try (Stream<Path> s = Files.list(folder)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(prefix)).sorted().toList();
        }
    }

    @Test
    void aFolderIsRemovedWithAllItHoldsAndALinksTargetIsKept() throws IOException {
        Path outside = Files.writeString(dir.resolve("kept.txt"), "mine");
        Path f = ScratchFolders.create("test-remove");
        assertTrue(f.getFileName().toString().startsWith("flagtrace-test-remove." + ProcessHandle.current().pid() + "-"), f.toString());
        Files.writeString(Files.createDirectories(f.resolve("a/b")).resolve("c.bin"), "x");
        Files.createSymbolicLink(f.resolve("link.parquet"), outside);
        ScratchFolders.remove(f);
        assertFalse(Files.exists(f));
        assertEquals("mine", Files.readString(outside));
    }

    @Test
    void aFolderOfAProcessThatNoLongerRunsIsRemovedByTheNextOfItsTagAndALiveOnesIsNot() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        assertTrue(gone.waitFor(30, TimeUnit.SECONDS));
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        Path stale = Files.createDirectory(tmp.resolve("flagtrace-test-stale." + gone.pid() + "-1"));
        Files.writeString(stale.resolve("db.duckdb"), "left by a kill -9");
        long parent = ProcessHandle.current().parent().orElseThrow().pid();
        Path live = Files.createDirectory(tmp.resolve("flagtrace-test-stale." + parent + "-1"));
        Path other = Files.createDirectory(tmp.resolve("flagtrace-test-stale-other." + gone.pid() + "-1"));
        Path mine = ScratchFolders.create("test-stale");
        try {
            assertFalse(Files.exists(stale), "a dead process's folder is removed");
            assertTrue(Files.isDirectory(live), "a live process's folder is kept");
            assertTrue(Files.isDirectory(other), "another tag's folder is kept");
        } finally {
            ScratchFolders.remove(mine);
            Files.deleteIfExists(live);
            Files.deleteIfExists(other);
        }
    }

    /** A program that makes a folder, fills it, says so and waits to be stopped. */
    public static final class Holder {
        public static void main(String[] args) throws Exception {
            Path f = ScratchFolders.create("test-signal");
            Files.writeString(f.resolve("spill.bin"), "x".repeat(1 << 16));
            System.out.println("ready " + f);
            Thread.sleep(TimeUnit.MINUTES.toMillis(5));
        }
    }

    @Test
    @Timeout(120)
    void aFolderIsRemovedWhenTheProcessIsStoppedBySigterm() throws Exception {
        ProgramRun run = ProgramRun.start(dir, List.of("-Djava.io.tmpdir=" + dir), Holder.class.getName());
        try {
            run.awaitLine("ready ");
            assertEquals(1, named(dir, "flagtrace-test-signal.").size(), run.stdout());
            run.process().destroy(); // SIGTERM
            assertTrue(run.process().waitFor(60, TimeUnit.SECONDS), run.stderr());
            assertEquals(List.of(), named(dir, "flagtrace-test-signal."), "the folder outlived its process");
        } finally {
            run.process().destroyForcibly();
            run.clean();
        }
    }
}
