package org.flagos.trace.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link JournalFiles}: a queue file that is not a regular file is named from attributes alone; a real journal (a
 * bundled capture's) walks to its last document; a cycle file emptied, cut or overwritten stops the walk at the last
 * whole document before the damage, in words naming the file.
 */
class JournalFilesTest {
    @TempDir
    Path dir;

    private static Path cycleFile(Path journal) throws IOException {
        try (Stream<Path> files = Files.list(journal)) {
            List<Path> cycles = files.filter(p -> p.getFileName().toString().endsWith(SingleChronicleQueue.SUFFIX)).sorted().toList();
            assertEquals(1, cycles.size(), "the bundled capture journals in one cycle: " + cycles);
            return cycles.get(0);
        }
    }

    private static JournalFiles.Extent walk(Path journal) {
        try (SingleChronicleQueue q = SingleChronicleQueueBuilder.single(journal.toFile()).readOnly(true).timeoutMS(100).build()) {
            return JournalFiles.walk(journal, q);
        }
    }

    @Test
    void aWholeJournalWalksToItsLastDocument() throws Exception {
        Path journal = dir.resolve("j");
        JournalFixtures.journal("h200-app-tiny2k", journal);
        long last;
        try (SingleChronicleQueue q = SingleChronicleQueueBuilder.single(journal.toFile()).readOnly(true).build()) {
            last = q.lastIndex();
        }
        JournalFiles.Extent whole = walk(journal);
        assertNull(whole.damage());
        assertEquals(last, whole.endIndex(), "every document Chronicle wrote is whole");
        Path cycle = cycleFile(journal);
        String name = cycle.getFileName().toString();

        // cut inside the data: the walk stops at the last whole document before the cut, and says where
        long cut = 20_000;
        try (FileChannel c = FileChannel.open(cycle, StandardOpenOption.WRITE)) {
            c.truncate(cut);
        }
        JournalFiles.Extent shorter = walk(journal);
        assertTrue(shorter.damage() != null && shorter.damage().startsWith("cycle file " + name + " is damaged at byte ")
                && shorter.damage().endsWith(" bytes, past the file's end at " + cut + " (a cut file, or garbage after the last document)"),
                String.valueOf(shorter.damage()));
        assertTrue(shorter.endIndex() < whole.endIndex(), shorter.endIndex() + " < " + whole.endIndex());

        // its first bytes zeroed: no header
        try (FileChannel c = FileChannel.open(cycle, StandardOpenOption.WRITE)) {
            c.write(java.nio.ByteBuffer.allocate(8), 0);
        }
        JournalFiles.Extent noHeader = walk(journal);
        assertEquals("cycle file " + name + " has no header (not a Chronicle Queue file)", noHeader.damage());
        assertEquals(-1, noHeader.endIndex());

        // emptied
        try (FileChannel c = FileChannel.open(cycle, StandardOpenOption.WRITE)) {
            c.truncate(0);
        }
        JournalFiles.Extent empty = walk(journal);
        assertEquals("cycle file " + name + " is empty (0 bytes): what was journaled in it is lost", empty.damage());
        assertEquals(-1, empty.endIndex());
    }

    @Test
    void queueFilesThatAreNotRegularFilesAreNamed() throws Exception {
        Path journal = Files.createDirectory(dir.resolve("k"));
        Files.writeString(journal.resolve("notes.txt"), "not a queue file: never looked at");
        Files.createDirectory(journal.resolve("other"));
        assertNull(JournalFiles.notRegular(journal), "only .cq4 and .cq4t files count");
        Files.writeString(journal.resolve("20261205.cq4"), "");
        assertNull(JournalFiles.notRegular(journal), "a regular file, however broken, is the walk's to judge");

        Path d = Files.createDirectory(journal.resolve("x.cq4"));
        assertEquals("its queue file x.cq4 is a directory, not a regular file; only the files --journal writes can be read",
                JournalFiles.notRegular(journal));
        Files.delete(d);

        Files.createSymbolicLink(journal.resolve("metadata.cq4t"), journal.resolve("nowhere"));
        assertEquals("its queue file metadata.cq4t is a link that leads to no file (a dangling link, or a loop of links); only the files"
                + " --journal writes can be read", JournalFiles.notRegular(journal));
        Files.delete(journal.resolve("metadata.cq4t"));

        Path fifo = dir.resolve("fifo");
        Process mk = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertEquals(0, mk.waitFor());
        Files.createSymbolicLink(journal.resolve("20261206.cq4"), fifo);
        assertEquals("its queue file 20261206.cq4 is a link to a FIFO, not a regular file; only the files --journal writes can be read",
                JournalFiles.notRegular(journal));
    }

    @Test
    void aDirectoryThatCannotBeListedIsSaidSo() {
        String why = JournalFiles.notRegular(dir.resolve("absent"));
        assertTrue(why.startsWith("its files cannot be listed ("), why);
    }
}
