package org.flagos.trace.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Unchanged C programs built against a vendor's fake libraries, as a user without a GPU would build
 * them: {@code scripts/fake-gpu-env VENDOR}'s exports, then the machine's C compiler; and what the
 * tests of {@code flagtrace run} on them share: a fresh folder per run, the traces it holds, deleting it.
 */
public final class FakeGpuPrograms {
    private FakeGpuPrograms() {
    }

    /**
     * Builds {@code source} (under src/test/native) into {@code out} with the fakes of {@code vendor},
     * linked with {@code libraries} (cc's {@code -l} words); fails the test with the compiler's output.
     */
    public static Path build(String vendor, String source, Path out, String libraries) throws IOException, InterruptedException {
        Process cc = new ProcessBuilder("sh", "-c", "eval \"$(scripts/fake-gpu-env " + vendor + ")\" && cc -O1 -Wall -Werror -o "
                + out + " src/test/native/" + source + " " + libraries).redirectErrorStream(true).start();
        String output = new String(cc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(cc.waitFor(120, TimeUnit.SECONDS) && cc.exitValue() == 0, "building " + source + ": " + output);
        return out;
    }

    /** {@code root/name}, emptied of what an earlier run left there (not created: {@code run -d} creates it). */
    public static Path fresh(Path root, String name) throws IOException {
        Path dir = root.resolve(name);
        delete(dir);
        return dir;
    }

    /**
     * The traces {@code flagtrace run} wrote in {@code dir}, by name: one per process armed from its start
     * ({@code flagtrace-PID.json}) and one per window armed later ({@code flagtrace-PID-wN.json}); not the merged trace.
     */
    public static List<Path> traces(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().matches("flagtrace-\\d+(-w\\d+)?\\.json")).sorted().toList();
        }
    }

    /** The file names of {@code paths}, in order. */
    public static List<String> names(List<Path> paths) {
        return paths.stream().map(p -> p.getFileName().toString()).toList();
    }

    /** Deletes {@code dir} and everything under it, if it is there. */
    public static void delete(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> all = Files.walk(dir)) {
                for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }
}
