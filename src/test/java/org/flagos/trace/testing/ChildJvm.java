package org.flagos.trace.testing;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The start of a command line for a child JVM of a test: this JVM's {@code java}, and the settings
 * that keep what a JVM writes inside the build tree (docs/testing.md), passed on from the test JVM
 * where the pom's surefire configuration set them: {@code java.io.tmpdir} (a child otherwise writes
 * its temporary files in {@code /tmp}; {@code TMPDIR} alone does not move them) and JavaCPP's cache
 * ({@code org.bytedeco.javacpp.cachedir}: a child loading a native library through JavaCPP otherwise
 * extracts it into {@code ~/.javacpp}).
 */
public final class ChildJvm {
    static final String JAVACPP_CACHE = "org.bytedeco.javacpp.cachedir";

    /** {@code java}, the build-tree settings, then {@code flags}; the caller adds the class path, class and arguments. */
    public static List<String> command(String... flags) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"));
        String cache = System.getProperty(JAVACPP_CACHE);
        if (cache != null) {
            command.add("-D" + JAVACPP_CACHE + "=" + cache);
        }
        command.addAll(List.of(flags));
        return command;
    }

    private ChildJvm() {
    }
}
