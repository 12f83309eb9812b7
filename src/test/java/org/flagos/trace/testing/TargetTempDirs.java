package org.flagos.trace.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AnnotatedElementContext;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDirFactory;

/**
 * {@code @TempDir(factory = TargetTempDirs.class)}: a test's scratch directory under
 * {@code target/tmp} of the build (not the system's temporary directory), deleted by JUnit after
 * the test as any {@code @TempDir}.
 */
public final class TargetTempDirs implements TempDirFactory {
    @Override
    public Path createTempDirectory(AnnotatedElementContext element, ExtensionContext extension) throws IOException {
        Path base = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().resolve("target").resolve("tmp");
        Files.createDirectories(base);
        return Files.createTempDirectory(base, "junit-");
    }
}
