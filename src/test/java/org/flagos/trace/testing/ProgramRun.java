package org.flagos.trace.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A child JVM running a program, its standard output and error kept in files inside {@code dir}. */
public record ProgramRun(Process process, Path out, Path err) {
    /** Starts {@code java FLAGS -cp <this class path> MAIN ARGS} in {@code dir}. */
    public static ProgramRun start(Path dir, List<String> flags, String main, String... args) throws IOException {
        List<String> command = ChildJvm.command(flags.toArray(String[]::new));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main));
        command.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        return new ProgramRun(p, out, err);
    }

    public String stdout() throws IOException {
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    public String stderr() throws IOException {
        return Files.readString(err, StandardCharsets.UTF_8);
    }

    /** Waits until the program printed {@code line} (60 s at most, and only while it runs). */
    public void awaitLine(String line) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!stdout().contains(line)) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                throw new AssertionError("the program never printed '" + line + "': " + stderr());
            }
            Thread.sleep(20);
        }
    }

    /** Closes its standard input, waits for it to end (60 s at most) and deletes the two files; its exit code. */
    public int finish() throws IOException, InterruptedException {
        process.getOutputStream().close();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the program did not end: " + stderr());
        }
        return process.exitValue();
    }

    /** Deletes the output files. */
    public void clean() throws IOException {
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
    }
}
