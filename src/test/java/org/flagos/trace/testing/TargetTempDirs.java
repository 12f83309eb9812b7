package org.flagos.trace.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AnnotatedElementContext;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDirFactory;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * The one place that names where tests put temporary files: {@code target/tmp} of the build, never
 * the system's temporary directory (docs/testing.md).
 *
 * <ul>
 *   <li>Every {@code @TempDir} is made here: {@code src/test/resources/junit-platform.properties}
 *       names this class as JUnit's {@code junit.jupiter.tempdir.factory.default}, so a plain
 *       {@code @TempDir} needs no {@code factory =}. JUnit deletes it after the test (or the class).
 *   <li>The test JVM's {@code java.io.tmpdir} and its children's {@code TMPDIR} point at the same
 *       folder (the pom's surefire configuration), for what libraries and child processes make
 *       (Jazzer's agent, the C compiler, Chromium's profile). As a launcher session listener
 *       (registered in {@code META-INF/services}) this class creates the folder before any test runs,
 *       since nothing can make a temporary file in a temporary directory that does not exist.
 * </ul>
 */
public final class TargetTempDirs implements TempDirFactory, LauncherSessionListener {
    /** {@code target/tmp} beside the pom. */
    public static Path root() {
        return Path.of(System.getProperty("basedir", ".")).toAbsolutePath().normalize().resolve("target").resolve("tmp");
    }

    @Override
    public Path createTempDirectory(AnnotatedElementContext element, ExtensionContext extension) throws IOException {
        return Files.createTempDirectory(Files.createDirectories(root()), "junit-");
    }

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        try {
            Files.createDirectories(root());
            String tmpdir = System.getProperty("java.io.tmpdir");
            if (tmpdir != null) {
                Files.createDirectories(Path.of(tmpdir));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
