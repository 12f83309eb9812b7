package org.flagos.trace.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.flagos.trace.ingest.CaptureFormatException;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.testing.TargetScratch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 30, item 6: a cycle file that is a link to a FIFO (or any other node that is not a regular
 * file) is refused at once instead of hanging the reader; a write into a mapped file that faults
 * (the disk is full) is said in words.
 */
class JournalHostileFilesTest {
    @TempDir
    Path tmp;

    private Path journal() throws IOException {
        Path dir = tmp.resolve("ops");
        try (JournalWriter writer = JournalWriter.open(JournalOptions.to(dir),
                new JournalSession("ops", "test", 1_000, List.of(), Map.of(), -1, false))) {
            for (int i = 0; i < 10; i++) {
                writer.op(new HostOp("op-" + i, new ExternalId(i), 7, 1_000 + i * 10L, 1_005 + i * 10L));
            }
            writer.stop(2_000);
        }
        return dir;
    }

    private static Path cycleFile(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".cq4")).findFirst().orElseThrow();
        }
    }

    @Test
    void aCycleFileLinkedToAFifoIsRefusedAtOnce() throws IOException {
        Path dir = journal();
        Path cycle = cycleFile(dir);
        Files.delete(cycle);
        Path fifo = TargetScratch.fifo(tmp.resolve("pipe"));
        Files.createSymbolicLink(cycle, fifo);
        CaptureFormatException e = assertTimeoutPreemptively(Duration.ofSeconds(20),
                () -> assertThrows(CaptureFormatException.class, () -> JournalReader.open(dir).close()));
        assertTrue(e.getMessage().contains(cycle.getFileName().toString()) && e.getMessage().contains("FIFO"), e.getMessage());
    }

    @Test
    void aMetadataFileThatIsADirectoryIsRefused() throws IOException {
        Path dir = journal();
        Files.delete(dir.resolve("metadata.cq4t"));
        Files.createDirectory(dir.resolve("metadata.cq4t"));
        CaptureFormatException e = assertThrows(CaptureFormatException.class, () -> JournalReader.open(dir).close());
        assertTrue(e.getMessage().contains("metadata.cq4t") && e.getMessage().contains("directory"), e.getMessage());
    }

    @Test
    void aFaultInAMappedWriteIsSaidAsAFullDisk() {
        // What the JVM throws when a write into a mapped file hits a full disk (SIGBUS), as seen with
        // `mount -t tmpfs -o size=64k` (the commit that added this test records the run).
        InternalError fault = new InternalError("a fault occurred in a recent unsafe memory access operation in compiled Java code");
        assertTrue(MappedFault.is(fault));
        assertTrue(MappedFault.is(new RuntimeException("wrapped", fault)));
        assertFalse(MappedFault.is(new InternalError("something else")));
        String words = JournalWriter.reason(fault);
        assertTrue(words.startsWith("the disk is full"), words);
        assertFalse(words.contains("unsafe") || words.contains("Error"), words);
        assertEquals(words, JournalWriter.reason(new IllegalStateException("x", fault)));
    }
}
