package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.flagos.trace.testing.TargetTempDir;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new user's Maven project, built from the README alone: the README's example (the code block
 * under its {@code Example.java} marker) in a project whose only dependency is the one the README
 * names, compiled and run against the installed jar. Without the CUDA bindings it must print one
 * line and still write a trace with the op in it. The class path it gets is the one the README
 * states (jars and bytes besides flagtrace's own) and holds none of the CLI's libraries.
 *
 * <p>The jar is installed into a repository under target/ (never the user's ~/.m2): Maven reads
 * the user's repository as a remote one (file://) and copies what the project needs from it.
 */
class ReadmeEmbeddingTest {
    private static final String MARKER = "<!-- example: Example.java -->";
    /** The README's figure: "Embedding adds N jars (X MB) besides flagtrace's own". */
    private static final Pattern FIGURE = Pattern.compile("adds (\\d+) jars \\(([0-9.]+) MB\\) besides flagtrace's own");

    @TempDir(factory = TargetTempDir.class)
    Path dir;

    @Test
    void theReadmeExampleBuildsAndRunsWithOnlyTheNamedDependency() throws Exception {
        Path root = Path.of("").toAbsolutePath();
        Path dir = this.dir.toAbsolutePath(); // TargetTempDir's is relative; Maven runs in other directories
        Path jar = dir.resolve("flagtrace.jar");
        jarOf(root.resolve("target/classes"), jar);
        Path settings = buildLocalSettings(root.resolve("target/embedding-repository"), dir.resolve("settings.xml"));
        run(root, List.of(mvn(), "-B", "-q", "-s", settings.toString(),
                "org.apache.maven.plugins:maven-install-plugin:3.1.2:install-file", "-Dfile=" + jar, "-DpomFile=" + root.resolve("pom.xml")));

        Path project = dir.resolve("uses-flagtrace");
        Files.createDirectories(project.resolve("src/main/java"));
        Files.copy(root.resolve("src/test/embedding/pom.xml"), project.resolve("pom.xml"));
        Files.writeString(project.resolve("src/main/java/Example.java"), example(root.resolve("README.md")));
        run(project, List.of(mvn(), "-B", "-q", "-s", settings.toString(), "package", "dependency:build-classpath",
                "-Dmdep.outputFile=cp.txt"));
        String dependencies = Files.readString(project.resolve("cp.txt")).trim();
        String classpath = project.resolve("target/classes") + java.io.File.pathSeparator + dependencies;
        assertTrue(!classpath.contains("/org/bytedeco/cuda/"), "the user's class path holds no CUDA bindings: " + classpath);
        for (String cliOnly : List.of("/info/picocli/", "/me/tongfei/", "/org/jline/", "/commons-cli/")) {
            assertFalse(classpath.contains(cliOnly), "the user's class path holds none of the CLI's libraries (" + cliOnly + "): " + classpath);
        }
        List<Path> others = Stream.of(dependencies.split(java.io.File.pathSeparator)).map(Path::of)
                .filter(p -> !p.getFileName().toString().startsWith("flagtrace-")).toList();
        long bytes = 0;
        for (Path p : others) {
            bytes += Files.size(p);
        }
        Matcher figure = FIGURE.matcher(Files.readString(root.resolve("README.md")));
        assertTrue(figure.find(), "README states what embedding adds: " + FIGURE);
        String stated = figure.group(1) + " jars (" + figure.group(2) + " MB)";
        String measured = others.size() + " jars (" + String.format(java.util.Locale.ROOT, "%.1f", bytes / 1e6) + " MB)";
        assertEquals(stated, measured, "the README's figure is the class path's: " + others);

        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", classpath, "Example")
                .directory(project.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        String stderr = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the example ends");
        assertEquals(0, p.exitValue(), stderr);
        List<String> lines = stderr.lines().toList();
        assertEquals(1, lines.size(), "one line on stderr: " + stderr);
        assertTrue(lines.get(0).startsWith("flagtrace: no device activity") && lines.get(0).contains("CPU-side profiling continues"),
                lines.get(0));
        JsonNode trace = TraceJson.MAPPER.readTree(project.resolve("trace.json").toFile());
        boolean op = false;
        for (JsonNode e : trace.get("traceEvents")) {
            op |= "cpu_op".equals(e.path("cat").asText()) && "matmul".equals(e.path("name").asText());
        }
        assertTrue(op, "the example's op is in its trace");
    }

    private static String example(Path readme) throws IOException {
        String text = Files.readString(readme);
        int marker = text.indexOf(MARKER);
        assertTrue(marker >= 0, "README has the example marker");
        int start = text.indexOf("```java\n", marker) + "```java\n".length();
        int end = text.indexOf("```", start);
        return text.substring(start, end);
    }

    /**
     * Settings whose local repository is {@code repository} (under target/), with the user's own
     * local repository read as a remote one, before Maven Central: what the build already fetched is
     * copied from there, and nothing is written to it.
     */
    private static Path buildLocalSettings(Path repository, Path settings) throws IOException {
        Path users = userRepository();
        String url = users.toUri().toString();
        Files.writeString(settings, "<settings>\n"
                + "  <localRepository>" + repository + "</localRepository>\n"
                + "  <profiles><profile><id>users-repository</id>\n"
                + "    <repositories><repository><id>users-repository</id><url>" + url + "</url></repository></repositories>\n"
                + "    <pluginRepositories><pluginRepository><id>users-repository</id><url>" + url + "</url></pluginRepository></pluginRepositories>\n"
                + "  </profile></profiles>\n"
                + "  <activeProfiles><activeProfile>users-repository</activeProfile></activeProfiles>\n"
                + "</settings>\n");
        return settings;
    }

    /** The local repository this build resolved from: where a dependency's jar on the test class path lies. */
    private static Path userRepository() {
        try {
            Path jar = Path.of(com.lmax.disruptor.RingBuffer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return jar.getParent().getParent().getParent().getParent().getParent(); // com/lmax/disruptor/VERSION/JAR
        } catch (java.net.URISyntaxException e) {
            throw new AssertionError(e);
        }
    }

    private static String mvn() {
        return System.getProperty("os.name").startsWith("Windows") ? "mvn.cmd" : "mvn";
    }

    private static void run(Path in, List<String> command) throws Exception {
        Process p = new ProcessBuilder(command).directory(in.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(5, TimeUnit.MINUTES), "timed out: " + command);
        assertEquals(0, p.exitValue(), command + " failed:\n" + out);
    }

    private static void jarOf(Path classes, Path jar) throws IOException {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(classes)) {
            walk.filter(Files::isRegularFile).forEach(files::add);
        }
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out)) {
            for (Path f : files) {
                j.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
                Files.copy(f, j);
                j.closeEntry();
            }
        }
    }
}
