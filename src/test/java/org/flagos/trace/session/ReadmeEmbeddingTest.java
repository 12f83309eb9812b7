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
 * <p>The jar is installed into a Maven repository of the build's own, {@code target/embedding-m2},
 * never into the user's {@code ~/.m2}: both Maven runs get {@code -Dmaven.repo.local} pointing there
 * and a settings file that lists the user's local repository (read only, as a {@code file:} remote,
 * releases only) before Maven Central, so that what the user's builds already fetched is copied from
 * there, without the network, and only what is missing is downloaded (into the build's repository).
 * The repository is kept between runs until {@code mvn clean}.
 */
class ReadmeEmbeddingTest {
    private static final String MARKER = "<!-- example: Example.java -->";
    /** The README's figure: "Embedding adds N jars (X MB) besides flagtrace's own". */
    private static final Pattern FIGURE = Pattern.compile("adds (\\d+) jars \\(([0-9.]+) MB\\) besides flagtrace's own");

    @TempDir
    Path dir;

    @Test
    void theReadmeExampleBuildsAndRunsWithOnlyTheNamedDependency() throws Exception {
        Path root = Path.of("").toAbsolutePath();
        Path dir = this.dir.toAbsolutePath(); // Maven runs in other directories
        Path jar = dir.resolve("flagtrace.jar");
        jarOf(root.resolve("target/classes"), jar);
        Path repository = Files.createDirectories(root.resolve("target/embedding-m2"));
        Path settings = dir.resolve("settings.xml");
        Files.writeString(settings, settings(usersRepository()));
        List<String> maven = List.of(mvn(), "-B", "-q", "-gs", settings.toString(), "-Dmaven.repo.local=" + repository);
        run(root, concat(maven, "install:install-file", "-Dfile=" + jar, "-DpomFile=" + root.resolve("pom.xml")));

        Path project = dir.resolve("uses-flagtrace");
        Files.createDirectories(project.resolve("src/main/java"));
        Files.copy(root.resolve("src/test/embedding/pom.xml"), project.resolve("pom.xml"));
        Files.writeString(project.resolve("src/main/java/Example.java"), example(root.resolve("README.md")));
        run(project, concat(maven, "package", "dependency:build-classpath", "-Dmdep.outputFile=cp.txt"));
        String dependencies = Files.readString(project.resolve("cp.txt")).trim();
        String classpath = project.resolve("target/classes") + java.io.File.pathSeparator + dependencies;
        assertTrue(!classpath.contains("/org/bytedeco/cuda/"), "the user's class path holds no CUDA bindings: " + classpath);
        for (String entry : classpath.split(java.io.File.pathSeparator)) {
            assertTrue(Path.of(entry).toAbsolutePath().startsWith(root.resolve("target")),
                    "the example runs from the build's own repository: " + entry);
        }
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

    /** The outer build's local repository: -Dmaven.repo.local (surefire passes it on), else ~/.m2/repository. */
    private static Path usersRepository() {
        String configured = System.getProperty("maven.repo.local");
        return configured != null && !configured.isBlank() ? Path.of(configured)
                : Path.of(System.getProperty("user.home"), ".m2", "repository");
    }

    /** Global settings: the user's repository as a read-only, releases-only source ahead of Maven Central. */
    private static String settings(Path usersRepository) {
        String url = usersRepository.toAbsolutePath().toUri().toString();
        String repository = """
                  <id>users-local-repository</id>
                  <url>%s</url>
                  <releases><enabled>true</enabled><checksumPolicy>ignore</checksumPolicy></releases>
                  <snapshots><enabled>false</enabled></snapshots>
                """.formatted(url);
        return """
                <settings>
                  <profiles>
                    <profile>
                      <id>seed</id>
                      <repositories><repository>
                %s      </repository></repositories>
                      <pluginRepositories><pluginRepository>
                %s      </pluginRepository></pluginRepositories>
                    </profile>
                  </profiles>
                  <activeProfiles><activeProfile>seed</activeProfile></activeProfiles>
                </settings>
                """.formatted(repository, repository);
    }

    private static List<String> concat(List<String> first, String... more) {
        List<String> all = new ArrayList<>(first);
        all.addAll(List.of(more));
        return all;
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
