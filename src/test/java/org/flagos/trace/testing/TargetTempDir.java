package org.flagos.trace.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AnnotatedElementContext;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDirFactory;

/** {@code @TempDir(factory = TargetTempDir.class)}: a temporary directory under target/, removed by JUnit after the test. */
public final class TargetTempDir implements TempDirFactory {
    @Override
    public Path createTempDirectory(AnnotatedElementContext element, ExtensionContext context) throws Exception {
        return Files.createTempDirectory(Files.createDirectories(Path.of("target", "test-tmp")), "junit");
    }
}
