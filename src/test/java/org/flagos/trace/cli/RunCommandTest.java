package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.flagos.trace.agent.FlagtraceAgent;
import org.flagos.trace.agent.ForkingProgram;
import org.flagos.trace.agent.UnchangedProgram;
import org.flagos.trace.testing.AgentJars;
import org.flagos.trace.testing.ChildJvm;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code flagtrace run -- CMD}: an unchanged program and every JVM of its process tree traced, one
 * trace each, merged when there are several; the program's exit code is run's.
 */
class RunCommandTest {
    private final CliRunner cli = new CliRunner();
    private Path root;
    private Path jar;

    @BeforeEach
    void agentJar() throws IOException {
        root = Path.of("target", "agent-test", "run").toAbsolutePath();
        jar = AgentJars.forThisClassPath(root, FlagtraceAgent.class.getName());
    }

    @Test
    void tracesTheProgramAndExitsWithItsCode() throws Exception {
        Path dir = fresh("one");
        assertEquals(7, cli.run(args(dir, UnchangedProgram.class.getName(), "100")), cli.stderr());
        List<Path> traces = traces(dir);
        assertEquals(1, traces.size(), cli.stderr());
        assertTrue(cli.stderr().contains("exited with 7; 1 trace: " + traces.get(0)), cli.stderr());
        JsonNode t = new ObjectMapper().readTree(traces.get(0).toFile());
        assertTrue(t.has("flagtrace") && t.get("traceEvents").size() > 0);
        delete(dir);
    }

    @Test
    void tracesEveryJvmOfTheTreeAndMergesThem() throws Exception {
        Path dir = fresh("tree");
        assertEquals(7, cli.run(args(dir, ForkingProgram.class.getName(), "100")), cli.stderr());
        List<Path> traces = traces(dir);
        assertEquals(2, traces.size(), "the launcher and its worker: " + cli.stderr());
        Path merged = dir.resolve("merged.json");
        assertTrue(cli.stderr().contains("merged into " + merged), cli.stderr());
        JsonNode m = new ObjectMapper().readTree(merged.toFile());
        assertTrue(m.has("flagtrace_merge"), "the merge's block");
        delete(dir);
    }

    @Test
    void refusesBadOptionsBeforeStartingAnything() {
        assertEquals(2, cli.run("run", "--duration", "0", "--agent-jar", jar.toString(), "--", "true"));
        assertTrue(cli.stderr().contains("duration=0 would record nothing"), cli.stderr());
    }

    @Test
    void aProgramThatCannotStartExitsAsAShellWouldAndLeavesNoFolder() throws Exception {
        Path dir = fresh("not-found");
        assertEquals(127, cli.run("run", "-d", dir.toString(), "--agent-jar", jar.toString(), "--",
                root.resolve("no-such-program").toString()));
        assertEquals(1, cli.stderr().lines().count(), cli.stderr());
        assertTrue(cli.stderr().contains("cannot start " + root.resolve("no-such-program") + ": no such file or directory; exit 127"),
                cli.stderr());
        assertTrue(!cli.stderr().contains("Cannot run program"), "no JDK words: " + cli.stderr());
        assertTrue(!Files.exists(dir), "run made the folder and nothing came into it");

        Path notExecutable = root.resolve("not-executable.sh");
        Files.createDirectories(root);
        Files.writeString(notExecutable, "echo hi\n");
        Path kept = fresh("kept");
        Files.createDirectories(kept);
        assertEquals(126, cli.run("run", "-d", kept.toString(), "--agent-jar", jar.toString(), "--", notExecutable.toString()));
        assertTrue(cli.stderr().contains(": permission denied; exit 126"), cli.stderr());
        assertTrue(Files.isDirectory(kept), "a folder the user gave is left as it was");
        delete(kept);
        Files.delete(notExecutable);
    }

    /**
     * A process of the tree that reached run's socket and left no capture (here one that connects and closes before its
     * hello) is counted in run's last line, and run does not exit 0 over it: 3 when the program exited 0, the program's own
     * code otherwise. (Before, run exited 0 with a trace missing.)
     */
    @Test
    void aProcessThatReachedRunAndLeftNoCaptureIsCountedAndRunDoesNotExitZero() throws Exception {
        String connectsAndLeaves = "import os, socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(os.environ['"
                + InjectedRun.SOCKET_VARIABLE + "']); s.close(); sys.exit(int(sys.argv[1]))";
        Path dir = fresh("no-capture");
        assertEquals(3, cli.run("run", "-d", dir.toString(), "--agent-jar", jar.toString(), "--", "python3", "-c", connectsAndLeaves, "0"),
                cli.stderr());
        List<String> lines = cli.stderr().lines().toList();
        assertEquals("flagtrace run: 1 process reached run but left no capture; exit 3 (the program exited 0)", lines.get(lines.size() - 1),
                cli.stderr());
        assertTrue(cli.stderr().contains("exited with 0; 0 traces in " + dir.toAbsolutePath()), cli.stderr());
        delete(dir);
        assertEquals(5, cli.run("run", "-d", dir.toString(), "--agent-jar", jar.toString(), "--", "python3", "-c", connectsAndLeaves, "5"),
                cli.stderr());
        lines = cli.stderr().lines().toList();
        assertEquals("flagtrace run: 1 process reached run but left no capture; exit 5 (the program's own)", lines.get(lines.size() - 1),
                cli.stderr());
        delete(dir);
    }

    @Test
    void aRunFolderThatCannotBeMadeIsNamed() throws Exception {
        Path file = root.resolve("a-file");
        Files.createDirectories(root);
        Files.writeString(file, "x");
        assertEquals(1, cli.run("run", "-d", file.resolve("sub").toString(), "--agent-jar", jar.toString(), "--", "true"));
        assertTrue(cli.stderr().contains("cannot make the run's folder " + file.resolve("sub")), cli.stderr());
        Files.delete(file);
    }

    private String[] args(Path dir, String main, String arg) {
        List<String> a = new ArrayList<>(List.of("run", "-d", dir.toString(), "--agent-jar", jar.toString(), "--"));
        a.addAll(ChildJvm.command());
        a.addAll(List.of("-cp", System.getProperty("java.class.path"), main, arg));
        return a.toArray(String[]::new);
    }

    private Path fresh(String name) throws IOException {
        Path dir = root.resolve(name);
        delete(dir);
        return dir;
    }

    private static List<Path> traces(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().startsWith("flagtrace-")).sorted().toList();
        }
    }

    private static void delete(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> all = Files.walk(dir)) {
                for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }
}
