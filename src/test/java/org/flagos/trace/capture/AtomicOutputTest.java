package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An output that appears whole or not at all, on a real file system (a {@code @TempDir} under
 * {@code target/}): nothing at the target until commit, nothing left by an abandoned one, an existing
 * file replaced only by a whole new one, {@code .gz} compressed, stale temporaries of dead processes
 * removed and live ones kept, temporaries' names within 255 bytes, and refusals in words.
 */
class AtomicOutputTest {
    @TempDir
    Path dir;

    private List<String> names() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
        }
    }

    @Test
    void theTargetAppearsOnlyAtCommitAndWhole() throws IOException {
        Path target = dir.resolve("trace.json");
        byte[] body = "{\"traceEvents\":[]}".getBytes(StandardCharsets.US_ASCII);
        try (AtomicOutput out = new AtomicOutput(target)) {
            out.stream().write(body);
            out.finish();
            assertFalse(Files.exists(target), "finished, not yet committed");
            List<String> during = names();
            assertEquals(1, during.size(), during.toString());
            assertTrue(during.get(0).startsWith(".trace.json." + ProcessHandle.current().pid() + "-")
                    && during.get(0).endsWith(".partial"), during.toString());
            out.commit();
        }
        assertArrayEquals(body, Files.readAllBytes(target));
        assertEquals(List.of("trace.json"), names(), "no temporary left");
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(target)));
    }

    @Test
    void anOutputNotCommittedLeavesNothingAndTheOldFileAsItWas() throws IOException {
        Path target = dir.resolve("trace.json");
        try (AtomicOutput out = new AtomicOutput(target)) {
            out.stream().write(new byte[100_000]);
        }
        assertEquals(List.of(), names());
        Files.writeString(target, "old");
        try (AtomicOutput out = new AtomicOutput(target)) {
            out.stream().write("half of a new".getBytes(StandardCharsets.US_ASCII));
        }
        assertEquals("old", Files.readString(target));
        try (AtomicOutput out = new AtomicOutput(target)) {
            out.stream().write("new".getBytes(StandardCharsets.US_ASCII));
            out.commit();
        }
        assertEquals("new", Files.readString(target));
        assertEquals(List.of("trace.json"), names());
    }

    @Test
    void aGzTargetIsCompressed() throws IOException {
        Path target = dir.resolve("trace.json.gz");
        byte[] body = "x".repeat(1 << 20).getBytes(StandardCharsets.US_ASCII);
        try (AtomicOutput out = new AtomicOutput(target)) {
            out.stream().write(body);
            out.commit();
        }
        assertTrue(Files.size(target) < body.length / 100, Files.size(target) + " bytes");
        try (InputStream in = new GZIPInputStream(Files.newInputStream(target))) {
            assertArrayEquals(body, in.readAllBytes());
        }
    }

    @Test
    void staleTemporariesOfDeadProcessesGoAndLiveOnesStay() throws IOException {
        Path target = dir.resolve("t.json");
        Path dead = Files.createFile(dir.resolve(".t.json.2000000000-123.partial")); // no pid reaches 2^22
        Path live = Files.createFile(dir.resolve(".t.json." + ProcessHandle.current().pid() + "-456.partial"));
        Path foreign = Files.createFile(dir.resolve(".t.json.notours.partial"));
        Path otherTarget = Files.createFile(dir.resolve(".u.json.2000000000-1.partial"));
        try (AtomicOutput out = new AtomicOutput(target)) {
            out.commit();
        }
        assertFalse(Files.exists(dead));
        assertTrue(Files.exists(live), "this process's own");
        assertTrue(Files.exists(foreign), "not a name AtomicOutput gives");
        assertTrue(Files.exists(otherTarget), "another target's");
    }

    @Test
    void temporariesOfLongNamesStayWithin255Bytes() throws IOException {
        assertEquals(".trace.json.", AtomicOutput.prefix("trace.json"));
        String wide = "\u00e9".repeat(127) + "x"; // 255 bytes of UTF-8: the longest valid name
        assertEquals(255, wide.getBytes(StandardCharsets.UTF_8).length);
        String prefix = AtomicOutput.prefix(wide);
        assertTrue(prefix.getBytes(StandardCharsets.UTF_8).length <= AtomicOutput.NAME_BYTES_KEPT + 2, prefix);
        assertEquals(prefix, AtomicOutput.prefix(wide), "the same for every run");
        assertFalse(prefix.equals(AtomicOutput.prefix("\u00e9".repeat(127) + "y")), "two names, two prefixes");
        assertTrue(prefix.matches("\\.\u00e9+~[0-9a-f]{8}\\."), prefix);
        Path target = dir.resolve(wide);
        try (AtomicOutput out = new AtomicOutput(target)) {
            out.stream().write(1);
            out.commit();
        }
        assertEquals(1, Files.size(target));
    }

    @Test
    void whatCannotBeWrittenIsRefusedInWords() throws IOException {
        assertEquals("it is a directory; give a file name inside it", AtomicOutput.whyNotWritable(dir));
        Path missing = dir.resolve("no/such/dir/t.json");
        assertTrue(AtomicOutput.whyNotWritable(missing).startsWith("the directory " + missing.getParent() + " does not exist"),
                AtomicOutput.whyNotWritable(missing));
        Path file = Files.createFile(dir.resolve("plain"));
        assertEquals(file + " is a file, not a directory", AtomicOutput.whyNotWritable(file.resolve("t.json")));
        assertNull(AtomicOutput.whyNotWritable(dir.resolve("t.json")));
        IOException e = assertThrows(IOException.class, () -> new AtomicOutput(missing));
        assertTrue(e.getMessage().startsWith("cannot write " + missing + ": "), e.getMessage());
        assertFalse(e.getMessage().contains(".partial"), "the user's name, never the temporary's");
        assertEquals(e.getMessage(), AtomicOutput.describe(e));
        assertEquals(List.of("plain"), names());
        if (Files.exists(Path.of("/dev/null"))) {
            assertEquals("character device", AtomicOutput.nodeType(Path.of("/dev/null")));
            assertTrue(AtomicOutput.writesStraight(Path.of("/dev/null")));
            try (AtomicOutput out = new AtomicOutput(Path.of("/dev/null"))) {
                OutputStream s = out.stream();
                s.write(new byte[10]);
                out.commit();
            }
            assertEquals("character device", AtomicOutput.nodeType(Path.of("/dev/null")), "not replaced by a file");
        }
    }
}
