package org.flagos.trace.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.flagos.trace.testing.AgentJars;
import org.flagos.trace.testing.ProgramRun;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The agent armed at launch ({@code -javaagent}) in a real child JVM running a program that knows
 * nothing of flagtrace: the program's output and exit code are its own; the trace is a flagtrace
 * trace. No GPU here: the sessions trace the host only (on the H200 the same runs would carry
 * CUPTI's records: not run yet). {@code flagtrace attach} is tested in the CLI's tests.
 */
class FlagtraceAgentTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static Path dir;
    private static Path agentJar;

    @BeforeAll
    static void agentJar() throws IOException {
        dir = Path.of("target", "agent-test", "launch").toAbsolutePath();
        agentJar = AgentJars.forThisClassPath(dir, FlagtraceAgent.class.getName());
    }

    @Test
    void armedAtLaunchStopsAfterItsDurationWhileTheProgramRunsOn() throws Exception {
        Path trace = dir.resolve("launch.json");
        Files.deleteIfExists(trace);
        ProgramRun run = ProgramRun.start(dir, List.of("-javaagent:" + agentJar + "=trace=" + trace + ",duration=0.3"),
                UnchangedProgram.class.getName(), "1500");
        assertEquals(7, run.finish(), run.stderr());
        assertEquals("hello from the program\nbye\n", run.stdout(), "the program's output is its own");
        assertTrue(run.stderr().contains("flagtrace agent: trace written (its duration ended): " + trace), run.stderr());
        assertFlagtraceTrace(trace);
        Files.delete(trace);
        run.clean();
    }

    @Test
    void armedAtLaunchWithoutADurationWritesTheTraceWhenTheProgramExits() throws Exception {
        Path trace = dir.resolve("exit.json");
        Files.deleteIfExists(trace);
        ProgramRun run = ProgramRun.start(dir, List.of("-javaagent:" + agentJar + "=trace=" + trace), UnchangedProgram.class.getName(), "100");
        assertEquals(7, run.finish(), run.stderr());
        assertTrue(run.stderr().contains("trace written (the program exited): " + trace), run.stderr());
        assertFlagtraceTrace(trace);
        Files.delete(trace);
        run.clean();
    }

    @Test
    void badOptionsLeaveTheProgramRunningUntraced() throws Exception {
        ProgramRun run = ProgramRun.start(dir, List.of("-javaagent:" + agentJar + "=duration=soon"), UnchangedProgram.class.getName(), "10");
        assertEquals(7, run.finish(), run.stderr());
        assertEquals("hello from the program\nbye\n", run.stdout());
        assertEquals("flagtrace agent: not tracing: 'duration=soon': not a number of seconds\n", run.stderr());
        run.clean();
    }

    /** A whole flagtrace trace: JSON that parses to the end, with events and flagtrace's block. */
    static void assertFlagtraceTrace(Path trace) throws IOException {
        assertTrue(Files.isRegularFile(trace), trace + " was not written");
        JsonNode t = JSON.readTree(trace.toFile());
        assertTrue(t.get("traceEvents").isArray() && t.get("traceEvents").size() > 0, "events");
        assertTrue(t.has("flagtrace"), "the flagtrace block");
    }
}
