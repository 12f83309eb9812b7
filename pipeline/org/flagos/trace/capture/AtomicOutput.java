package org.flagos.trace.capture;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.zip.GZIPOutputStream;

/**
 * An output file that appears whole or not at all: bytes go to a temporary file beside the target,
 * renamed over it on {@link #commit()}; {@link #close()} without commit deletes the temporary.
 * A target ending in {@code .gz} is gzip-compressed.
 */
public final class AtomicOutput implements AutoCloseable {
    private final Path target;
    private final Path temporary;
    private final OutputStream stream;
    private boolean committed;

    public AtomicOutput(Path target) throws IOException {
        this.target = target.toAbsolutePath();
        Path dir = this.target.getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        this.temporary = Files.createTempFile(dir, "." + this.target.getFileName(), ".partial");
        readableByAll(temporary);
        OutputStream raw = new BufferedOutputStream(Files.newOutputStream(temporary), 1 << 16);
        this.stream = target.getFileName().toString().endsWith(".gz") ? new GZIPOutputStream(raw, 1 << 16) : raw;
    }

    /** Temporary files are created owner-only; the finished output is an ordinary file (rw-r--r--). */
    private static void readableByAll(Path file) throws IOException {
        if (file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        }
    }

    public OutputStream stream() {
        return stream;
    }

    public void commit() throws IOException {
        stream.close();
        try {
            Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
        }
        committed = true;
    }

    @Override
    public void close() {
        if (!committed) {
            try {
                stream.close();
            } catch (IOException ignored) {
                // the temporary is deleted next; its content no longer matters
            }
            try {
                Files.deleteIfExists(temporary);
            } catch (IOException ignored) {
                // best effort: a leftover .partial file is visibly incomplete by its name
            }
        }
    }
}
