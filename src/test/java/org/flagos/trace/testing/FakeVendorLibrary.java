package org.flagos.trace.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Builds a fake vendor activity library ({@code src/test/native/NAME.c}) with the machine's C
 * compiler into {@code target/fake-vendors/libNAME.so}, once per source change. A tracer then
 * loads it through the same native path it loads the real vendor library.
 */
public final class FakeVendorLibrary {
    private static final Path SOURCES = Path.of("src/test/native");
    private static final Path OUT = Path.of("target/fake-vendors");

    /** The built library's absolute path. */
    public static synchronized Path build(String name) {
        Path source = SOURCES.resolve(name + ".c");
        Path library = OUT.resolve("lib" + name + ".so").toAbsolutePath();
        try {
            if (!Files.exists(source)) {
                throw new IllegalArgumentException("no fake vendor source " + source.toAbsolutePath());
            }
            if (Files.exists(library) && newest(source) <= Files.getLastModifiedTime(library).toMillis()) {
                return library;
            }
            Files.createDirectories(OUT);
            Path partial = OUT.resolve("lib" + name + ".so.partial");
            List<String> command = new ArrayList<>(List.of(System.getenv().getOrDefault("CC", "cc"),
                    "-shared", "-fPIC", "-O1", "-g", "-Wall", "-Wextra", "-Werror", "-pthread", "-std=gnu11",
                    "-I", SOURCES.toString(), "-o", partial.toString(), source.toString()));
            Process cc = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(cc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!cc.waitFor(120, TimeUnit.SECONDS) || cc.exitValue() != 0) {
                throw new IllegalStateException("building " + source + " failed:\n" + String.join(" ", command) + "\n" + output);
            }
            Files.move(partial, library, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            return library;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Newest modification time of the source and the shared fake headers it may include. */
    private static long newest(Path source) throws IOException {
        long newest = Files.getLastModifiedTime(source).toMillis();
        try (var headers = Files.list(SOURCES)) {
            for (Path h : (Iterable<Path>) headers.filter(p -> p.toString().endsWith(".h"))::iterator) {
                newest = Math.max(newest, Files.getLastModifiedTime(h).toMillis());
            }
        }
        return newest;
    }

    private FakeVendorLibrary() {
    }
}
