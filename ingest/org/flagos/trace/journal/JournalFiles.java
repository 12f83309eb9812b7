package org.flagos.trace.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.NavigableSet;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import org.flagos.trace.ingest.InputFiles;

/**
 * Walks a journal's cycle files with plain reads, before Chronicle maps any of them, and finds
 * where the whole documents end: Chronicle trusts the 4-byte header of each excerpt, so a header
 * that runs past the end of its file (a cut file, bytes of garbage after the last document) makes
 * its mapped read fault, and a cycle file with no header at all (an empty file) makes it wait for
 * one to be written, several seconds per tailer. Reading stops before either.
 *
 * <p>An excerpt is a little-endian int header (bit 31: not complete, bit 30: metadata, bits 0-29:
 * length) and that many bytes, padded to 4; a zero header ends the written part, and
 * {@code 0xC0000000} marks a cycle that was rolled. The first excerpt of every file is its
 * header; index pages are metadata; data excerpts are numbered 0, 1, 2 ... within their cycle.
 */
final class JournalFiles {
    private static final int NOT_COMPLETE = 0x8000_0000;
    private static final int META_DATA = 0x4000_0000;
    private static final int LENGTH_MASK = 0x3FFF_FFFF;
    private static final int END_OF_DATA = NOT_COMPLETE | META_DATA;
    /** Headers are read through a window of this many bytes: small documents cost no read each. */
    private static final int WINDOW_BYTES = 64 << 10;

    /**
     * Where reading may go.
     *
     * @param endIndex the queue index of the last whole data document before any damage, or -1
     *                 when there is none
     * @param damage   what is wrong past it, in words naming the file, or null
     */
    record Extent(long endIndex, String damage) {
    }

    /**
     * Why the journal in {@code dir} cannot be opened because one of its queue files ({@code .cq4},
     * {@code .cq4t}) is not a regular file: a FIFO (opening it would wait for a writer forever), a
     * directory, a device or a socket, or a link to one. Found from the directory's listing and the
     * files' attributes only: nothing is opened. Null when every queue file is a regular file.
     */
    static String notRegular(Path dir) {
        try (var entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (!name.endsWith(SingleChronicleQueue.SUFFIX) && !name.endsWith(".cq4t")) {
                    continue;
                }
                String why = InputFiles.notRegular(entry);
                if (why != null) {
                    return "its queue file " + name + " " + why + "; only the files --journal writes can be read";
                }
            }
            return null;
        } catch (IOException e) {
            return "its files cannot be listed (" + e.getMessage() + ")";
        }
    }

    /** Walks every cycle file of {@code queue}, oldest first, and stops at the first damage. */
    static Extent walk(Path dir, SingleChronicleQueue queue) {
        RollCycle roll = queue.rollCycle();
        int first = queue.firstCycle();
        int last = queue.lastCycle();
        if (first == Integer.MAX_VALUE || last == Integer.MIN_VALUE || first > last) {
            return new Extent(-1, null);
        }
        NavigableSet<Long> cycles = queue.listCyclesBetween(first, last);
        DateTimeFormatter names = DateTimeFormatter.ofPattern(roll.format()).withZone(ZoneOffset.UTC);
        long endIndex = -1;
        for (long c : cycles) {
            int cycle = (int) c;
            Path file = dir.resolve(names.format(Instant.ofEpochMilli(cycle * (long) roll.lengthInMillis()))
                    + SingleChronicleQueue.SUFFIX);
            Walk walk;
            try {
                walk = walk(file);
            } catch (IOException e) {
                return new Extent(endIndex, "cycle file " + file.getFileName() + " cannot be read (" + e.getMessage() + ")");
            }
            if (walk.data > 0) {
                endIndex = roll.toIndex(cycle, walk.data - 1);
            }
            if (walk.damage != null) {
                return new Extent(endIndex, "cycle file " + file.getFileName() + " " + walk.damage);
            }
        }
        return new Extent(endIndex, null);
    }

    /** Whole data documents at the start of one file, and what ends them early (null: nothing). */
    private record Walk(long data, String damage) {
    }

    private static Walk walk(Path file) throws IOException {
        if (!Files.exists(file)) {
            return new Walk(0, "is missing");
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size == 0) {
                return new Walk(0, "is empty (0 bytes): what was journaled in it is lost");
            }
            ByteBuffer window = ByteBuffer.allocate(WINDOW_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            long windowStart = -1; // file offset of window[0]; the window holds [windowStart, windowStart + limit)
            long data = 0;
            long pos = 0;
            boolean first = true;
            while (true) {
                if (pos + 4 > size) {
                    return new Walk(data, first ? "is cut short before its header" : null);
                }
                if (windowStart < 0 || pos < windowStart || pos + 4 > windowStart + window.limit()) {
                    window.clear();
                    while (window.hasRemaining() && channel.read(window, pos + window.position()) > 0) {
                        // positional reads until the window is full or the file ends
                    }
                    window.flip();
                    windowStart = pos;
                }
                int h = window.getInt((int) (pos - windowStart));
                if (h == 0) {
                    return new Walk(data, first ? "has no header (not a Chronicle Queue file)" : null);
                }
                if (h == END_OF_DATA || (h & NOT_COMPLETE) != 0) {
                    return new Walk(data, null); // rolled, or a document being written (or left unfinished by a kill)
                }
                long length = h & LENGTH_MASK;
                if (pos + 4 + length > size) {
                    return new Walk(data, "is damaged at byte " + pos + ": the header there declares " + length
                            + " bytes, past the file's end at " + size + " (a cut file, or garbage after the last document)");
                }
                if ((h & META_DATA) == 0) {
                    if (first) {
                        return new Walk(0, "does not start with a Chronicle Queue header");
                    }
                    data++;
                }
                first = false;
                pos = (pos + 4 + length + 3) & ~3L;
            }
        }
    }

    private JournalFiles() {
    }
}
