package org.flagos.trace.fuzz;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Scratch files for the readers that only take a path: one file per name and JVM under
 * {@code target/fuzz-scratch/}, overwritten for every fuzz input, deleted when the JVM exits.
 * Nothing outside the repository is written or read.
 */
final class FuzzScratch {
    private static final Path DIR = Path.of(System.getProperty("basedir", "."), "target", "fuzz-scratch")
            .toAbsolutePath().normalize();

    /** A scratch path for {@code name} (e.g. {@code "names.tsv"}), unique to this JVM. */
    static Path file(String name) {
        try {
            Files.createDirectories(DIR);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Path path = DIR.resolve(ProcessHandle.current().pid() + "-" + name);
        path.toFile().deleteOnExit();
        return path;
    }

    /** Writes {@code bytes} to {@code path}, replacing what was there. */
    static Path write(Path path, byte[] bytes) {
        try {
            return Files.write(path, bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private FuzzScratch() {
    }
}
