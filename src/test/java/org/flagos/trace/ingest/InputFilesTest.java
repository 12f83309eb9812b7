package org.flagos.trace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link InputFiles}: each kind of node this machine has, made for the test (a file, a directory, a FIFO by
 * {@code mkfifo}, a socket bound here, links to each and a dangling one) or found ({@code /dev/null},
 * {@code /dev/loop0}), named as {@code stat} names it; only a regular file passes {@link InputFiles#requireRegular},
 * every other node is refused in one line naming it, without opening it (a FIFO with no writer would block).
 */
class InputFilesTest {
    @TempDir
    Path dir;

    private static String statType(Path p) throws Exception {
        Process stat = new ProcessBuilder("stat", "-L", "-c", "%F", p.toString()).redirectErrorStream(true).start();
        assertTrue(stat.waitFor(30, TimeUnit.SECONDS));
        return new String(stat.getInputStream().readAllBytes()).trim();
    }

    private static String refused(Path p, String what) {
        String m = assertThrows(CaptureFormatException.class, () -> InputFiles.requireRegular(p, what), p.toString()).getMessage();
        assertTrue(!m.contains("\n") && m.startsWith(p.toString()), m);
        return m;
    }

    private Path fifo() throws Exception {
        Path fifo = dir.resolve("pipe");
        Process mk = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assumeTrue(mk.waitFor(30, TimeUnit.SECONDS) && mk.exitValue() == 0, "mkfifo");
        return fifo;
    }

    @Test
    void everyNodeIsNamedAsStatNamesIt() throws Exception {
        Path file = Files.writeString(dir.resolve("f"), "x");
        assertEquals("regular file", InputFiles.nodeType(file));
        assertEquals("regular file", statType(file));
        assertEquals("directory", InputFiles.nodeType(dir));
        Path fifo = fifo();
        assertEquals("fifo", statType(fifo));
        assertEquals("FIFO", InputFiles.nodeType(fifo), "read from the attributes: the open would block");
        Path socket = dir.resolve("sock");
        try (ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            s.bind(UnixDomainSocketAddress.of(socket));
            assertEquals("socket", statType(socket));
            assertEquals("socket", InputFiles.nodeType(socket));
            assertTrue(refused(socket, "a capture").contains(socket + ": is a socket, not a regular file, so it cannot be a capture file"));
        }
        assertEquals("character device", InputFiles.nodeType(Path.of("/dev/null")));
        if (Files.exists(Path.of("/dev/loop0"))) {
            assertEquals("block special file", statType(Path.of("/dev/loop0")));
            assertEquals("block device", InputFiles.nodeType(Path.of("/dev/loop0")));
        }
        assertEquals("missing", InputFiles.nodeType(dir.resolve("none")));
        assertEquals("missing", InputFiles.nodeType(Files.createSymbolicLink(dir.resolve("dangling"), dir.resolve("none"))), "a dangling link");
        assertEquals("FIFO", InputFiles.nodeType(Files.createSymbolicLink(dir.resolve("to-pipe"), fifo)), "links followed");
        assertEquals("directory", InputFiles.nodeType(Files.createSymbolicLink(dir.resolve("to-dir"), dir)));
        assertEquals("missing", InputFiles.nodeType(file.resolve("child")), "under a file: nothing there");
    }

    @Test
    void onlyARegularFilePassesAndEachRefusalNamesThePath() throws Exception {
        Path file = Files.writeString(dir.resolve("ops.jsonl"), "");
        InputFiles.requireRegular(file, "an ops");
        InputFiles.requireRegular(Files.createSymbolicLink(dir.resolve("link.jsonl"), file), "an ops");
        assertEquals(dir + ": is a directory, not an ops file; give the file itself", refused(dir, "an ops"));
        Path missing = dir.resolve("none.fltrbuf");
        assertEquals(missing + ": no such file", refused(missing, "a capture"));
        Path dangling = Files.createSymbolicLink(dir.resolve("dangling"), missing);
        assertEquals(dangling + ": no such file", refused(dangling, "a capture"));
        Path fifo = fifo();
        long start = System.nanoTime();
        assertEquals(fifo + ": is a FIFO, not a regular file, so it cannot be a capture file;"
                + " save the data to a file on disk and give that file", refused(fifo, "a capture"));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10), "a FIFO with no writer is not opened");
        assertTrue(refused(Path.of("/dev/zero"), "a name table").contains("so it cannot be a name table file"));
        Path under = file.resolve("x");
        assertTrue(refused(under, "a capture").startsWith(under + ": "), "a path under a file");
    }

    @Test
    void aReasonIsWordsNotAClassName() {
        String r = InputFiles.reason(new java.nio.file.AccessDeniedException("/x"));
        assertTrue(!r.contains("Exception") && !r.isEmpty(), r);
        assertTrue(!InputFiles.reason(new IOException("disk on fire")).contains("IOException"));
    }
}
