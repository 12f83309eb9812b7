package org.flagos.trace.ingest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.flagos.trace.model.KernelNames;

/**
 * The kernel-name table saved beside a capture ({@code NAME.names.tsv}): one
 * {@code 0x<handle><TAB><name as the vendor reported it>} line per kernel, {@code #} comments.
 * A vendor's kernel record names its kernel by a pointer valid only inside the capturing process,
 * so a replay needs this table to name kernels.
 */
public final class KernelNameFile implements KernelNames {
    private final Map<Long, String> names;

    private KernelNameFile(Map<Long, String> names) {
        this.names = names;
    }

    /** The conventional location beside {@code capture}: strips .gz and .fltrbuf, adds .names.tsv. */
    public static Path besides(Path capture) {
        return CaptureSidecars.NAMES.besides(capture);
    }

    /**
     * Reads a table; it must be a regular file of UTF-8 lines of at most {@link TextLines#MAX_LINE_BYTES}.
     * Every problem is a one-line {@link CaptureFormatException} naming the file and the line.
     */
    public static KernelNameFile read(Path path) {
        InputFiles.requireRegular(path, "a kernel name table");
        Map<Long, String> names = new HashMap<>();
        try (TextLines lines = TextLines.of(Files.newInputStream(path), path.toString())) {
            String line;
            while ((line = lines.next()) != null) {
                add(names, line, lines.number() - 1, path);
            }
        } catch (NoSuchFileException e) {
            throw new CaptureFormatException(path + ": no such file");
        } catch (IOException e) {
            throw new CaptureFormatException(path + ": cannot read (" + InputFiles.reason(e) + ")", e);
        }
        return new KernelNameFile(Map.copyOf(names));
    }

    /** Adds line {@code i + 1} of the table to {@code names}. */
    private static void add(Map<Long, String> names, String line, int i, Path path) {
        if (line.isBlank() || line.startsWith("#")) {
            return;
        }
        int tab = line.indexOf('\t');
        if (tab < 3 || !line.startsWith("0x") || tab == line.length() - 1) {
            throw new CaptureFormatException(path + ":" + (i + 1) + ": expected 0x<hex handle><TAB><name>");
        }
        long handle;
        try {
            handle = Long.parseUnsignedLong(line.substring(2, tab), 16);
        } catch (NumberFormatException e) {
            throw new CaptureFormatException(path + ":" + (i + 1) + ": bad hex handle " + line.substring(0, tab));
        }
        String previous = names.put(handle, line.substring(tab + 1));
        if (previous != null && !previous.equals(line.substring(tab + 1))) {
            throw new CaptureFormatException(path + ":" + (i + 1) + ": handle " + line.substring(0, tab) + " named twice");
        }
    }

    @Override
    public String lookup(long handle) {
        return names.get(handle);
    }

    /** Every entry, handle to name (for journaling the table). */
    public Map<Long, String> entries() {
        return names;
    }

    public int size() {
        return names.size();
    }
}
