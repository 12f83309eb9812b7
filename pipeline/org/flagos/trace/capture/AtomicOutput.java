package org.flagos.trace.capture;

import java.io.BufferedOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.zip.GZIPOutputStream;

/**
 * An output file that appears whole or not at all: bytes go to a temporary file beside the target,
 * renamed over it on {@link #commit()}; {@link #close()} without commit deletes the temporary.
 * The temporary's name carries the writing process's id ({@code .NAME.PID-RANDOM.partial}): a
 * process killed before it could delete its temporary (kill -9, a power cut) leaves one behind, and
 * the next output to the same target deletes every such temporary whose process is gone.
 * A target ending in {@code .gz} is gzip-compressed; the stream carries the target's {@link TraceFormat}. Every failure names the target the user asked
 * for, never the temporary file, and says why in words.
 */
public final class AtomicOutput implements AutoCloseable {
    private final Path target;
    private final Path temporary;
    private final OutputStream stream;
    private boolean finished;
    private boolean committed;

    public AtomicOutput(Path target) throws IOException {
        this.target = target.toAbsolutePath();
        Path dir = this.target.getParent();
        try {
            if (dir != null) {
                Files.createDirectories(dir);
            }
            removeStale(dir, this.target.getFileName().toString());
            this.temporary = Files.createTempFile(dir, prefix(this.target.getFileName().toString()) + PID + "-", SUFFIX);
            readableByAll(temporary);
            OutputStream raw = new BufferedOutputStream(Files.newOutputStream(temporary), 1 << 16);
            OutputStream named = new Named(raw, this.target);
            OutputStream file = target.getFileName().toString().endsWith(".gz") ? new GZIPOutputStream(named, 1 << 16) : named;
            this.stream = new TraceFormat.Tagged(file, TraceFormat.of(this.target));
        } catch (IOException e) {
            throw new OutputException(this.target, e);
        }
    }

    private static final String SUFFIX = ".partial";
    private static final long PID = ProcessHandle.current().pid();

    private static String prefix(String name) {
        return "." + name + ".";
    }

    /**
     * Deletes the temporaries of {@code name} left by processes that no longer run (their id is in
     * the name; a temporary of a live process, this one's included, is never touched).
     */
    static void removeStale(Path dir, String name) {
        String prefix = prefix(name);
        try (var entries = Files.newDirectoryStream(dir == null ? Path.of(".") : dir, prefix + "*" + SUFFIX)) {
            for (Path entry : entries) {
                String middle = entry.getFileName().toString();
                middle = middle.substring(prefix.length(), middle.length() - SUFFIX.length());
                int dash = middle.indexOf('-');
                if (dash <= 0 || !middle.substring(0, dash).chars().allMatch(Character::isDigit)
                        || !middle.substring(dash + 1).chars().allMatch(Character::isDigit)) {
                    continue; // not a name this class gives
                }
                long pid;
                try {
                    pid = Long.parseLong(middle.substring(0, dash));
                } catch (NumberFormatException e) {
                    continue;
                }
                if (pid != PID && !ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                    Files.deleteIfExists(entry);
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // best effort: a stale temporary is visibly incomplete by its name; the output itself goes on
        }
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

    /** Writes out everything buffered (a full disk shows here); the target does not exist yet. */
    public void finish() throws IOException {
        if (!finished) {
            try {
                stream.close();
            } catch (IOException e) {
                throw e instanceof OutputException ? e : new OutputException(target, e);
            }
            finished = true;
        }
    }

    /** Finishes, then renames the temporary over the target. */
    public void commit() throws IOException {
        finish();
        try {
            try {
                Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new OutputException(target, e);
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

    /** A failure to write {@code target}, in words, with what to do. */
    public static String describe(Throwable e) {
        if (e instanceof OutputException) {
            return e.getMessage();
        }
        return e instanceof FileSystemException ? reason((FileSystemException) e) : String.valueOf(e.getMessage());
    }

    private static String reason(IOException e) {
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof NoSuchFileException) {
            return "no such file or directory";
        }
        if (e instanceof NotDirectoryException) {
            return "a path component is not a directory";
        }
        if (e instanceof java.nio.file.FileAlreadyExistsException) {
            return "a file is in the way of a directory it needs";
        }
        if (e instanceof FileSystemException && ((FileSystemException) e).getReason() != null) {
            return ((FileSystemException) e).getReason();
        }
        String message = e.getMessage();
        return message == null ? e.getClass().getSimpleName() : message;
    }

    /** Why writing the user's output failed, naming it (not the temporary). */
    static final class OutputException extends IOException {
        private static final long serialVersionUID = 1L;

        OutputException(Path target, IOException cause) {
            super("cannot write " + target + ": " + reason(cause) + " (nothing was left there; check the path,"
                    + " its permissions and free space)", cause);
        }
    }

    /** Gives write errors the target's name. */
    private static final class Named extends FilterOutputStream {
        private final Path target;

        Named(OutputStream out, Path target) {
            super(out);
            this.target = target;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            try {
                out.write(b, off, len);
            } catch (IOException e) {
                throw new OutputException(target, e);
            }
        }

        @Override
        public void write(int b) throws IOException {
            try {
                out.write(b);
            } catch (IOException e) {
                throw new OutputException(target, e);
            }
        }

        @Override
        public void flush() throws IOException {
            try {
                out.flush();
            } catch (IOException e) {
                throw new OutputException(target, e);
            }
        }
    }
}
