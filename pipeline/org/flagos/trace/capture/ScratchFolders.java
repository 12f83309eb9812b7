package org.flagos.trace.capture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Private temporary folders of this process, in {@code java.io.tmpdir}, named {@code flagtrace-TAG.PID-N}, that never
 * outlive it: {@link #remove} deletes one with all it holds; a folder not yet removed when the JVM ends on a signal
 * (SIGTERM, Ctrl-C) is deleted by a shutdown hook; and one left by a process that no longer runs (kill -9, a power cut)
 * is deleted when this process first makes a folder of the same tag. A live process's folders are never touched.
 * {@code analyze} keeps DuckDB's database and spill files in one (gigabytes at 64 ranks x 1M events): before, a
 * stopped run left them behind.
 */
public final class ScratchFolders {
    private static final long PID = ProcessHandle.current().pid();
    private static final Set<Path> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(ScratchFolders::deleteTree), "flagtrace-scratch-exit"));
    }

    private ScratchFolders() {
    }

    /** A new empty folder of {@code tag} (letters, digits and dashes) for this process, its absolute path. */
    public static Path create(String tag) throws IOException {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        removeStale(tmp, tag);
        Path dir = Files.createTempDirectory(tmp, prefix(tag) + PID + "-").toAbsolutePath();
        LIVE.add(dir);
        return dir;
    }

    /** Deletes {@code dir} and all it holds (links deleted, never followed); null is nothing. Best effort. */
    public static void remove(Path dir) {
        if (dir != null) {
            deleteTree(dir);
            LIVE.remove(dir);
        }
    }

    private static String prefix(String tag) {
        return "flagtrace-" + tag + ".";
    }

    /** Deletes the folders of {@code tag} in {@code tmp} whose process no longer runs. */
    static void removeStale(Path tmp, String tag) {
        String prefix = prefix(tag);
        try (var entries = Files.newDirectoryStream(tmp, prefix + "*")) {
            for (Path entry : entries) {
                String rest = entry.getFileName().toString().substring(prefix.length());
                if (Files.isDirectory(entry) && AtomicOutput.leftByAGoneProcess(rest)) {
                    deleteTree(entry);
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // best effort: a stale folder is visibly flagtrace's by its name
        }
    }

    private static void deleteTree(Path dir) {
        try (var walk = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | UncheckedIOException ignored) {
            // what is left holds only copies of intermediate tables, and its name says whose it was
        }
    }
}
