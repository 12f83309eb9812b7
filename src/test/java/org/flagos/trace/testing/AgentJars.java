package org.flagos.trace.testing;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/**
 * An agent jar as the build makes (the manifest's Premain-Class and Agent-Class), for tests that run
 * before the build's jar exists: empty but for a Class-Path naming this test JVM's class path.
 */
public final class AgentJars {
    /** Writes {@code dir/agent.jar} for agent class {@code agent}; returns its path. */
    public static Path forThisClassPath(Path dir, String agent) throws IOException {
        Files.createDirectories(dir);
        Path jar = dir.resolve("agent.jar");
        Manifest manifest = new Manifest();
        Attributes a = manifest.getMainAttributes();
        a.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        a.putValue("Premain-Class", agent);
        a.putValue("Agent-Class", agent);
        List<String> urls = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            urls.add(Path.of(entry).toAbsolutePath().toUri().toString());
        }
        a.put(Attributes.Name.CLASS_PATH, String.join(" ", urls));
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest)) {
            out.flush();
        }
        return jar;
    }

    private AgentJars() {
    }
}
