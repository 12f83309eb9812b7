package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The launcher's first build (issue: "building..." and then nothing for 3 minutes, and raw escape
 * codes in stderr), without building: a copy of {@code ./flagtrace} runs with a stand-in {@code mvn}
 * that replays a real Maven 3.8.7 log of the launcher's build (escape codes included,
 * src/test/resources/launcher) and a stand-in {@code java}. Also: Maven itself, run in this project,
 * prints no escape code (.mvn/jvm.config).
 */
class LauncherTest {
    private static final Path FIXTURE = Path.of("src/test/resources/launcher/maven-3.8.7-package.log").toAbsolutePath();
    private static final char ESC = 0x1b;

    private Path root;

    record Run(int code, String out, String err) {
    }

    @BeforeEach
    void copyTheLauncher() throws IOException {
        assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "the launcher is a bash script");
        Files.createDirectories(Path.of("target"));
        root = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "launcher-test");
        Files.createDirectories(root.resolve("scripts"));
        Files.createDirectories(root.resolve("bin"));
        for (String f : List.of("flagtrace", "scripts/build-progress")) {
            Files.copy(Path.of(f), root.resolve(f), StandardCopyOption.COPY_ATTRIBUTES);
        }
        Files.writeString(root.resolve("pom.xml"), "<project/>\n");
        script("bin/java", "printf '%s\\n' \"$@\" > \"$FAKE_OUT/java.args\"\necho ran\n");
    }

    @AfterEach
    void cleanUp() throws IOException {
        if (root != null) {
            try (Stream<Path> files = Files.walk(root)) {
                for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                    Files.delete(p);
                }
            }
        }
    }

    private void script(String name, String body) throws IOException {
        Path p = root.resolve(name);
        Files.writeString(p, "#!/usr/bin/env bash\n" + body);
        assertTrue(p.toFile().setExecutable(true));
    }

    /** A stand-in mvn: records its arguments and MAVEN_OPTS, prints {@code log}, makes the jar, exits {@code code}. */
    private void fakeMaven(Path log, int code) throws IOException {
        script("bin/mvn", "printf '%s\\n' \"$@\" > \"$FAKE_OUT/mvn.args\"\nprintf '%s' \"${MAVEN_OPTS:-}\" > \"$FAKE_OUT/mvn.opts\"\n"
                + "cat '" + log + "'\n"
                + (code == 0 ? "mkdir -p target/lib && echo jar > target/flagtrace-0.1.0-SNAPSHOT.jar && echo dep > target/lib/dep.jar\n"
                        // a spark jar left by an earlier `mvn package` (docs/analysis.md) is not the CLI's jar
                        + "echo spark > target/flagtrace-0.1.0-SNAPSHOT-spark.jar\n" : "")
                + "exit " + code + "\n");
    }

    private Run launch(String... args) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of("/bin/bash", root.resolve("flagtrace").toString()));
        command.addAll(List.of(args));
        return run(command, root.resolve("bin").toString());
    }

    /** Runs {@code command} with {@code path} before the PATH, the stand-ins' output in {@link #root}. */
    private Run run(List<String> command, String path) throws IOException, InterruptedException {
        ProcessBuilder b = new ProcessBuilder(command).directory(root.toFile());
        b.environment().put("PATH", path + ":" + System.getenv("PATH"));
        b.environment().put("FAKE_OUT", root.toString());
        b.environment().put("FLAGTRACE_CDS", "0");
        b.redirectOutput(root.resolve("out.txt").toFile()).redirectError(root.resolve("err.txt").toFile());
        Process p = b.start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the launcher returns");
        return new Run(p.exitValue(), Files.readString(root.resolve("out.txt")), Files.readString(root.resolve("err.txt")));
    }

    private static void inOrder(String text, String... parts) {
        int at = 0;
        for (String part : parts) {
            int i = text.indexOf(part, at);
            assertTrue(i >= 0, "'" + part + "' after position " + at + " in:\n" + text);
            at = i + part.length();
        }
    }

    @Test
    void theFirstBuildPrintsItsStepsAndCountsInPlainText() throws Exception {
        assertTrue(Files.readString(FIXTURE).indexOf(ESC) >= 0, "the fixture carries Maven's escape codes");
        fakeMaven(FIXTURE, 0);
        Run run = launch("demo");
        assertEquals(0, run.code(), run.err());
        assertEquals("ran\n", run.out());
        assertEquals(-1, run.err().indexOf(ESC), "no escape code in the launcher's output: " + run.err());
        inOrder(run.err(), "building (first run or sources changed)", "build 1/5: resolving dependencies",
                "build 2/5: compiling the Java sources", "211 Java sources", "build 3/5: compiling the vendor",
                "shim 3: libjniRoctracerLibrary.so", "build 4/5: packaging", "build 5/5: copying the runtime dependencies",
                "built in", "1 runtime jars");
        assertTrue(run.err().lines().count() < 20, "a few lines, not Maven's log: " + run.err());
        String log = Files.readString(root.resolve("target/flagtrace-build.log"));
        assertTrue(log.contains("BUILD SUCCESS") && log.indexOf(ESC) < 0, "the whole log is kept, in plain text");

        List<String> mvnArgs = Files.readAllLines(root.resolve("mvn.args"));
        assertTrue(mvnArgs.containsAll(List.of("-B", "-Dstyle.color=never", "package")), mvnArgs.toString());
        assertTrue(mvnArgs.contains("-Dflagtrace.lean"), "the spark profile stays off in the launcher's build: " + mvnArgs);
        assertEquals("jar\n", Files.readString(root.resolve("target/flagtrace.jar")), "the main jar, not the spark jar");
        assertTrue(Files.readString(root.resolve("mvn.opts")).contains("-Djansi.noreset=true"), "no reset codes from Maven 3.8");
        List<String> javaArgs = Files.readAllLines(root.resolve("java.args"));
        assertTrue(javaArgs.contains("-Dflagtrace.launcher=" + root.resolve("flagtrace")), "hints name the launcher as run: " + javaArgs);
        assertEquals("demo", javaArgs.get(javaArgs.size() - 1));

        Run again = launch("demo");
        assertEquals(0, again.code());
        assertEquals("", again.err(), "built once");

        // On the PATH through a symlink: the launcher finds its clone, and hints say plain "flagtrace".
        Path onPath = Files.createDirectories(root.resolve("on-path"));
        Files.createSymbolicLink(onPath.resolve("flagtrace"), root.resolve("flagtrace"));
        Run linked = run(List.of("/bin/bash", "-c", "flagtrace summary x"), onPath + ":" + root.resolve("bin"));
        assertEquals(0, linked.code(), linked.err());
        javaArgs = Files.readAllLines(root.resolve("java.args"));
        assertTrue(javaArgs.contains("-Dflagtrace.launcher=flagtrace"), javaArgs.toString());
        assertTrue(javaArgs.contains("-cp") && javaArgs.get(javaArgs.indexOf("-cp") + 1).startsWith(root + "/target/flagtrace.jar"),
                "the jar of the clone the link points to: " + javaArgs);
    }

    @Test
    void downloadsAreCountedAndAFailedBuildSaysWhereItsLogIs() throws Exception {
        StringBuilder log = new StringBuilder(ESC + "[0m" + ESC + "[0m[INFO] Scanning for projects...\n");
        for (int i = 0; i < 60; i++) {
            log.append("[INFO] Downloading from central: https://repo.maven.apache.org/a").append(i).append(".jar\n");
            log.append("[INFO] Downloaded from central: https://repo.maven.apache.org/a").append(i).append(".jar (1 kB at 9 kB/s)\n");
        }
        log.append("[ERROR] Failed to execute goal: " + ESC + "[1mboom" + ESC + "[m\n");
        Path failing = root.resolve("failing.log");
        Files.writeString(failing, log, StandardCharsets.UTF_8);
        fakeMaven(failing, 1);
        Run run = launch("demo");
        assertEquals(1, run.code(), run.err());
        assertEquals(-1, run.err().indexOf(ESC), run.err());
        inOrder(run.err(), "25 artifacts downloaded", "50 artifacts downloaded", "flagtrace: [ERROR] Failed to execute goal: boom",
                "the build failed; the whole log is in " + root.resolve("target/flagtrace-build.log"));
        assertFalse(run.err().contains("Downloading from"), "Maven's transfer lines are counted, not shown");
        assertFalse(Files.exists(root.resolve("java.args")), "nothing is run after a failed build");
    }

    /** The progress filter's own status never fails a build that passed, whatever Maven's last line is. */
    @Test
    void aBuildThatPassedIsNotFailedByItsLastLine() throws Exception {
        Path log = root.resolve("ends-on-a-download.log");
        Files.writeString(log, "[INFO] Scanning for projects...\n[INFO] Downloaded from central: https://repo/a.jar (1 kB)\n");
        fakeMaven(log, 0);
        Run run = launch("demo");
        assertEquals(0, run.code(), run.err());
        assertEquals("ran\n", run.out());
    }

    /** What Maven 3.8.7 printed before .mvn/jvm.config: ESC[0m even in batch mode, in every log of this project. */
    @Test
    void mavenInThisProjectPrintsNoEscapeCode() throws Exception {
        Process p;
        try {
            p = new ProcessBuilder("mvn", "-B", "-v").redirectErrorStream(true).start();
        } catch (IOException e) {
            assumeTrue(false, "no mvn on the PATH");
            return;
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertTrue(out.contains("Apache Maven"), out);
        assertEquals(-1, out.indexOf(ESC), "mvn -B in this project: " + out);
    }
}
