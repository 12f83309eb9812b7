package org.flagos.trace.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A fresh directory under {@code target/test-scratch/} for one test, deleted with everything in it
 * on {@link #close()}: tests write nothing outside the repository's {@code target/}.
 */
public final class TargetScratch implements AutoCloseable {
    private static final Path ROOT = Path.of(System.getProperty("basedir", "."), "target", "test-scratch")
            .toAbsolutePath().normalize();

    private final Path dir;

    private TargetScratch(Path dir) {
        this.dir = dir;
    }

    /** A new empty directory named after {@code owner}. */
    public static TargetScratch of(String owner) {
        try {
            Files.createDirectories(ROOT);
            return new TargetScratch(Files.createTempDirectory(ROOT, owner + "-"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Path dir() {
        return dir;
    }

    /** Makes a FIFO (named pipe) at {@code path} with the system's mkfifo. */
    public static Path fifo(Path path) {
        try {
            Process p = new ProcessBuilder("mkfifo", path.toString()).inheritIO().start();
            if (p.waitFor() != 0) {
                throw new IllegalStateException("mkfifo " + path + " failed");
            }
            return path;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * The kind of node at {@code path} as the file system's mode bits say, independently of the code
     * under test: "character device", "FIFO", "regular file", "directory", "missing" or "other".
     */
    public static String nodeType(Path path) {
        try {
            int mode = (Integer) Files.getAttribute(path, "unix:mode", java.nio.file.LinkOption.NOFOLLOW_LINKS);
            switch (mode & 0170000) {
                case 0020000: return "character device";
                case 0010000: return "FIFO";
                case 0100000: return "regular file";
                case 0040000: return "directory";
                default: return "other";
            }
        } catch (java.nio.file.NoSuchFileException e) {
            return "missing";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Deletes the directory and everything in it (links and FIFOs as themselves, never followed). */
    @Override
    public void close() {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
