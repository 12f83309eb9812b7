package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.flagos.trace.agent.FlagtraceAgent;
import org.flagos.trace.agent.UnchangedProgram;
import org.flagos.trace.testing.AgentJars;
import org.flagos.trace.testing.ProgramRun;
import org.junit.jupiter.api.Test;

/**
 * {@code flagtrace attach PID}: the agent loaded into a running program through the JDK's Attach
 * API, then {@code --stop}: the trace is written while the program runs on, untouched.
 */
class AttachCommandTest {
    private final CliRunner cli = new CliRunner();

    @Test
    void armsARunningProgramAndStopWritesItsTrace() throws Exception {
        Path dir = Path.of("target", "agent-test", "attach").toAbsolutePath();
        Path jar = AgentJars.forThisClassPath(dir, FlagtraceAgent.class.getName());
        Path trace = dir.resolve("attached.json");
        Files.deleteIfExists(trace);
        ProgramRun run = ProgramRun.start(dir, List.of(), UnchangedProgram.class.getName(), "stdin");
        int exit;
        try {
            run.awaitLine("hello from the program");
            String pid = Long.toString(run.process().pid());
            assertEquals(0, cli.run("attach", pid, "-o", trace.toString(), "--agent-jar", jar.toString()), cli.stderr());
            assertTrue(cli.stdout().startsWith("flagtrace: armed " + pid + ", tracing to " + trace), cli.stdout());
            assertEquals(0, cli.run("attach", pid, "--stop", "--agent-jar", jar.toString()), cli.stderr());
            JsonNode t = new ObjectMapper().readTree(trace.toFile());
            assertTrue(t.has("flagtrace") && t.get("traceEvents").size() > 0);
        } finally {
            exit = run.finish();
        }
        assertEquals(7, exit, run.stderr());
        assertEquals("hello from the program\nbye\n", run.stdout());
        assertTrue(run.stderr().contains("flagtrace agent: trace written (stopped by 'flagtrace attach --stop'): " + trace), run.stderr());
        Files.delete(trace);
        run.clean();
    }

    @Test
    void refusesWhatItCannotAttachToWithTheUsageCode() {
        assertEquals(2, cli.run("attach", "999999999"));
        assertTrue(cli.stderr().contains("no process 999999999"), cli.stderr());
        assertEquals(2, cli.run("attach", Long.toString(ProcessHandle.current().pid())));
        assertTrue(cli.stderr().contains("is this flagtrace itself"), cli.stderr());
        assertEquals(2, cli.run("attach", "1", "--duration", "x"));
        assertEquals(2, cli.run("attach", "1", "--stop", "-o", "x.json"));
        assertTrue(cli.stderr().contains("--stop takes no other option"), cli.stderr());
        assertEquals(2, cli.run("attach", "1", "-o", "x.txt"), "a name that picks no format, as replay refuses it");
        assertEquals(1, cli.run("attach", "1", "-o", "no/such/dir/x.json"), "an output that cannot be written, before attaching");
    }
}
