package org.flagos.trace.capture;

import java.io.BufferedOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.flagos.trace.ingest.InputFiles;
import org.flagos.trace.ingest.IoFailureWords;

/**
 * An output file that appears whole or not at all: bytes go to a temporary file beside the target,
 * renamed over it on {@link #commit()}; {@link #close()} without commit deletes the temporary.
 * The temporary's name carries the writing process's id ({@code .NAME.PID-RANDOM.partial}): a
 * process killed before it could delete its temporary (kill -9, a power cut) leaves one behind, and
 * the next output to the same target deletes every such temporary whose process is gone.
 * A target ending in {@code .gz} is gzip-compressed, on worker threads ({@link ParallelGzipOutputStream},
 * stopped by {@link #finish()} or {@link #close()}); the stream says where a format's scratch files go (the
 * target's folder), never which format it is. Every failure names the target the user asked
 * for, never the temporary file, and says why in words.
 *
 * <p>The target's directory must exist: none is created. A target that is a character device or a
 * FIFO ({@code /dev/null}, a named pipe: {@link #writesStraight(Path)}) is written straight to, since
 * a rename would replace the node with a regular file; the reader of a pipe then sees the bytes as
 * they are written, and a failure cannot take back what it already read. Any other node that is not a
 * regular file (a directory, a block device, a socket) is refused.
 */
public final class AtomicOutput implements AutoCloseable {
    private final Path target;
    private final Path temporary; // null when written straight
    private final OutputStream stream;
    private boolean finished;
    private boolean committed;

    /**
     * The deflate level of {@code .gz} outputs unless {@code -Dflagtrace.gzip.level=1..9} says
     * otherwise (FLAGTRACE_JAVA_OPTS for the CLI): 1, zlib's fastest. On the 10M-record trace it
     * deflates four to six times faster than the default level 6 for a file about a third larger
     * (docs/benchmarks.md, "Compressed output").
     */
    static final int GZIP_LEVEL = 1;

    static int gzipLevel() {
        String level = System.getProperty("flagtrace.gzip.level");
        if (level != null && level.strip().matches("[1-9]")) {
            return Integer.parseInt(level.strip());
        }
        return GZIP_LEVEL;
    }

    /** Opens a temporary file beside {@code target}, or {@code target} itself when it {@link #writesStraight}. */
    public AtomicOutput(Path target) throws IOException {
        this(target, (file, named) -> new ParallelGzipOutputStream(file, named, gzipLevel()));
    }

    /** As {@link #AtomicOutput(Path)}, with {@code gzip} making the compressed stream of a {@code .gz} target (tests). */
    AtomicOutput(Path target, java.util.function.BiFunction<OutputStream, Path, OutputStream> gzip) throws IOException {
        this.target = target.toAbsolutePath();
        Path dir = this.target.getParent();
        boolean straight = writesStraight(this.target);
        try {
            if (!straight) {
                refuseUnwritable(this.target);
            }
            if (!straight) {
                removeStale(dir, this.target.getFileName().toString());
                this.temporary = Files.createTempFile(dir, prefix(this.target.getFileName().toString()) + PID + "-", SUFFIX);
                temporary.toFile().deleteOnExit(); // even an Error that ends the JVM leaves no .partial (kill -9: removeStale)
                readableByAll(temporary);
            } else {
                this.temporary = null;
            }
            OutputStream raw = new BufferedOutputStream(straight
                    ? Files.newOutputStream(this.target, java.nio.file.StandardOpenOption.WRITE)
                    : Files.newOutputStream(temporary), 1 << 16);
            OutputStream named = new Named(raw, this.target);
            OutputStream file = target.getFileName().toString().endsWith(".gz") ? gzip.apply(named, this.target) : named;
            this.stream = new TraceFormat.ScratchOutput(file);
        } catch (IOException e) {
            throw new OutputException(this.target, e);
        }
    }

    private static final String SUFFIX = ".partial";
    private static final long PID = ProcessHandle.current().pid();

    /** Bytes of a target's name kept whole in its temporary's name; a longer name is cut and given its hash. */
    static final int NAME_BYTES_KEPT = 180;

    /**
     * The start of the temporaries' names of target {@code name}: {@code .NAME.}, or for a name longer
     * than {@link #NAME_BYTES_KEPT} bytes (a valid name may have 255) its first bytes and a hash of the
     * whole, {@code .NAMESTART~1a2b3c4d.}, so that the temporary's name stays within the file system's
     * 255 bytes and is the same for every run (a later run still finds and removes a stale one).
     */
    static String prefix(String name) {
        byte[] bytes = name.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        if (bytes.length <= NAME_BYTES_KEPT) {
            return "." + name + ".";
        }
        StringBuilder kept = new StringBuilder();
        int used = 0;
        for (int i = 0; i < name.length(); ) {
            int cp = name.codePointAt(i);
            int n = new String(Character.toChars(cp)).getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
            if (used + n > NAME_BYTES_KEPT - 9) {
                break;
            }
            kept.appendCodePoint(cp);
            used += n;
            i += Character.charCount(cp);
        }
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(bytes);
        return "." + kept + "~" + String.format("%08x", crc.getValue()) + ".";
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

    /**
     * A new empty scratch file in {@code dir} for this process, named {@code .flagtrace-TAG.PID-N SUFFIX}
     * (deleted when the JVM exits, as a last resort): a process killed before it deleted it leaves a
     * name that {@link #removeStaleScratch} recognises. Stale ones of {@code tag} are removed first.
     */
    public static Path scratchFile(Path dir, String tag, String suffix) throws IOException {
        removeStaleScratch(dir, tag);
        Path file = Files.createTempFile(dir, scratchPrefix(tag) + PID + "-", suffix);
        file.toFile().deleteOnExit();
        return file;
    }

    private static String scratchPrefix(String tag) {
        return ".flagtrace-" + tag + ".";
    }

    /**
     * Deletes the scratch files of {@code tag} ({@link #scratchFile}) in {@code dir} whose process no
     * longer runs, and the {@code .partial} temporaries written towards them; a live process's files,
     * this one's included, are never touched.
     */
    public static void removeStaleScratch(Path dir, String tag) {
        String prefix = scratchPrefix(tag);
        try (var entries = Files.newDirectoryStream(dir == null ? Path.of(".") : dir, "*" + prefix + "*")) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                String rest = name.startsWith(prefix) ? name.substring(prefix.length())
                        : name.startsWith("." + prefix) ? name.substring(prefix.length() + 1) : null;
                if (rest != null && leftByAGoneProcess(rest)) {
                    Files.deleteIfExists(entry);
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // best effort: a stale scratch file is visibly flagtrace's by its name
        }
    }

    /**
     * Whether a scratch name's part after its tag, {@code PID-...}, names a process that no longer runs (never this
     * one); false for a part that is no such name.
     */
    static boolean leftByAGoneProcess(String rest) {
        int dash = rest.indexOf('-');
        if (dash <= 0 || dash > 19 || !rest.substring(0, dash).chars().allMatch(Character::isDigit)) {
            return false;
        }
        long pid = Long.parseLong(rest.substring(0, dash));
        return pid != PID && !ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /**
     * Whether {@code target} is written straight to instead of through a temporary file: an existing
     * character device or FIFO (links followed).
     */
    public static boolean writesStraight(Path target) {
        String type = nodeType(target);
        return type.equals("character device") || type.equals("FIFO");
    }

    /**
     * What kind of file system node {@code path} is: "missing", "regular file", "directory",
     * "character device", "FIFO", "block device", "socket", or "special file" where the file system
     * does not say ({@link InputFiles#nodeType}, the one rule for inputs and outputs).
     */
    public static String nodeType(Path path) {
        return InputFiles.nodeType(path);
    }

    /**
     * Throws an {@link IOException} in words unless a regular file can be created or replaced at
     * {@code target}: its directory exists (none is created) and it is not a directory or another node.
     */
    private static void refuseUnwritable(Path target) throws IOException {
        String problem = whyNotWritable(target);
        if (problem != null) {
            throw new IOException(problem);
        }
    }

    /**
     * Why a trace cannot be written to {@code target} (no directory, a file where a directory should
     * be, a directory or a device in its place), in words; null when nothing is in the way.
     */
    public static String whyNotWritable(Path target) {
        Path absolute = target.toAbsolutePath();
        String type = nodeType(absolute);
        if (type.equals("directory")) {
            return "it is a directory; give a file name inside it";
        }
        if (!type.equals("missing") && !type.equals("regular file") && !writesStraight(absolute)) {
            return "it is a " + type + ", which is neither a file nor something a trace can be streamed to"
                    + " (a character device or a FIFO)";
        }
        Path dir = absolute.getParent();
        if (dir == null || Files.isDirectory(dir)) {
            return null;
        }
        Path existing = dir;
        while (existing != null && nodeType(existing).equals("missing")) {
            existing = existing.getParent();
        }
        if (existing != null && !Files.isDirectory(existing)) {
            return existing + " is a file, not a directory";
        }
        return "the directory " + dir + " does not exist (it is not created); create it first, or choose an existing directory";
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

    /** Finishes, then renames the temporary over the target (a target written straight is done when finished). */
    public void commit() throws IOException {
        finish();
        if (temporary == null) {
            committed = true;
            return;
        }
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

    /**
     * Without {@link #commit()}: closes the stream and deletes the temporary, whatever the close
     * throws (an {@link Error} such as out of memory included), so no {@code .partial} file stays.
     */
    @Override
    public void close() {
        if (!committed) {
            try {
                stream.close();
            } catch (IOException | RuntimeException | Error ignored) {
                // the temporary is deleted next; its content no longer matters
            } finally {
                if (temporary != null) {
                    try {
                        Files.deleteIfExists(temporary);
                    } catch (IOException ignored) {
                        // best effort: a leftover .partial file is visibly incomplete by its name
                    }
                }
            }
        }
    }

    /** A failure to write {@code target}, in words, with what to do. */
    public static String describe(Throwable e) {
        if (e instanceof OutputException) {
            return e.getMessage();
        }
        return e instanceof FileSystemException ? IoFailureWords.writing((FileSystemException) e) : String.valueOf(e.getMessage());
    }

    /** Why writing the user's output failed, naming it (not the temporary). */
    static final class OutputException extends IOException {
        private static final long serialVersionUID = 1L;

        OutputException(Path target, IOException cause) {
            super("cannot write " + target + ": " + IoFailureWords.writing(cause) + " (nothing was left there; check the path,"
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
