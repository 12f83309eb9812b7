package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TensorBoardNames}: torch's {@code WORKER.EPOCH_NS SUFFIX} names, the nanoseconds raised past a file already
 * there (never overwriting one), and the default worker {@code HOSTNAME_PID} with the kernel's host name.
 */
class TensorBoardNamesTest {
    private static final Pattern NAME = Pattern.compile("w0\\.(\\d{19})\\.pt\\.trace\\.json");

    @Test
    void aNameAlreadyTakenIsPassedByRaisingTheNanoseconds(@TempDir Path dir) throws Exception {
        Path first = TensorBoardNames.next(dir, "w0", ".pt.trace.json");
        Matcher m = NAME.matcher(first.getFileName().toString());
        assertTrue(m.matches(), first.toString());
        assertEquals(dir, first.getParent());
        Files.createFile(first);
        Path second = TensorBoardNames.next(dir, "w0", ".pt.trace.json");
        assertNotEquals(first, second);
        Matcher m2 = NAME.matcher(second.getFileName().toString());
        assertTrue(m2.matches(), second.toString());
        assertTrue(Long.parseLong(m2.group(1)) > Long.parseLong(m.group(1)), "later, or raised past the file there");
        // names taken back to back, each file made at once, never one already there (the clock here is too fine to force
        // two calls into one tick: the raise past a taken name is seen only where the clock is coarse)
        java.util.Set<Path> taken = new java.util.HashSet<>(java.util.List.of(first, second));
        Files.createFile(second);
        for (int i = 0; i < 200; i++) {
            Path next = TensorBoardNames.next(dir, "w0", ".pt.trace.json");
            Files.createFile(next); // throws if the name was one already there
            assertTrue(taken.add(next));
        }
    }

    @Test
    void theDefaultWorkerIsTheKernelsHostNameAndThePid() throws Exception {
        Path kernel = Path.of("/proc/sys/kernel/hostname");
        String host = Files.isReadable(kernel) ? Files.readString(kernel).strip() : TensorBoardNames.hostname();
        assertEquals(host, TensorBoardNames.hostname());
        assertEquals(host + "_" + ProcessHandle.current().pid(), TensorBoardNames.defaultWorker());
    }
}
