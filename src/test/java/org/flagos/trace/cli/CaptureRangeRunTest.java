package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.flagos.trace.agent.FlagtraceAgent;
import org.flagos.trace.testing.AgentJars;
import org.flagos.trace.testing.FakeGpuPrograms;
import org.flagos.trace.testing.FakeGpuRun;
import org.flagos.trace.testing.ProgramRun;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code flagtrace run --capture-range}: an unchanged C program on the CUDA fakes
 * ({@code src/test/native/cuda/capture_range_program.c}) launches kernels before, inside and after two spans, each
 * span's kernel its own, and prints what it launched in each. With {@code nvtx:step} the spans are NVTX ranges named
 * "step" (nested, and overlapping on two threads); with {@code cudaProfilerApi} they run from cudaProfilerStart to
 * cudaProfilerStop, whose driver calls reach the injected library through CUPTI's callback API. Each span must give
 * one trace holding exactly its work, naming its range, and nothing launched outside a span may be in any trace.
 * {@code --journal} journals each window's capture: a replay of the journal gives the window's trace again.
 */
class CaptureRangeRunTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path ROOT = Path.of("target", "agent-test", "capture-range").toAbsolutePath();
    private static Path program;
    private static Path jar;

    @BeforeAll
    static void build() throws Exception {
        Files.createDirectories(ROOT);
        jar = AgentJars.forThisClassPath(ROOT, FlagtraceAgent.class.getName());
        program = FakeGpuPrograms.build("cupti", "cuda/capture_range_program.c", ROOT.resolve("capture_range_program"),
                "-lcudart -lcuda -pthread");
    }

    @Test
    void anNvtxRangeGivesOneTracePerOutermostRangeHoldingExactlyItsWork() throws Exception {
        Path dir = FakeGpuPrograms.fresh(ROOT, "nvtx");
        Path journal = FakeGpuPrograms.fresh(ROOT, "nvtx-journal");
        ProgramRun run = flagtraceRun(dir, List.of("--capture-range", "nvtx:step", "--journal", journal.toString()), "nvtx", "4");
        assertEquals(4, run.finish(), run.stderr());
        assertEquals("span 1: kernels=6 memsets=1 ranges=3 driver=1\nspan 2: kernels=3 memsets=0 ranges=2 driver=0\noutside: kernels=6\n",
                run.stdout(), "the program's stdout, untouched");
        List<Path> traces = FakeGpuPrograms.traces(dir);
        assertEquals(2, traces.size(), run.stderr());
        long pid = pid(traces.get(0));
        assertEquals(List.of("flagtrace-" + pid + "-w1.json", "flagtrace-" + pid + "-w2.json"), FakeGpuPrograms.names(traces), run.stderr());
        JsonNode w1 = JSON.readTree(traces.get(0).toFile());
        JsonNode w2 = JSON.readTree(traces.get(1).toFile());
        assertHoldsOnlySpan(w1, 1, "nvtx:step", run.stdout());
        assertHoldsOnlySpan(w2, 2, "nvtx:step", run.stdout());
        InjectedRunTest.Events e1 = new InjectedRunTest.Events(w1);
        assertEquals(2, e1.named("cpu_op", "step").size(), "the capture range and the one of its name nested in it");
        assertEquals(1, e1.named("cpu_op", "inner").size());
        long outer = e1.named("cpu_op", "step").stream().mapToLong(o -> o.path("dur").asLong()).max().orElseThrow();
        for (JsonNode op : e1.of("cpu_op")) { // the range that made the window holds the others
            assertTrue(op.path("dur").asLong() <= outer, op.toString());
        }
        InjectedRunTest.Events e2 = new InjectedRunTest.Events(w2);
        assertEquals(2, e2.named("cpu_op", "step").size(), "the two threads' ranges, one window");
        assertEquals(2, e2.of("cpu_op").stream().map(o -> o.path("tid").asText()).distinct().count(), "on two threads");
        assertTrue(run.stderr().contains("windows armed on demand are not merged"), run.stderr());
        assertTrue(run.stderr().contains("--capture-range: JVMs of the tree are not traced"), run.stderr());

        // Each window's capture was journaled as well: a replay of its journal gives its trace.
        for (Path trace : traces) {
            String base = trace.getFileName().toString().replace(".json", "");
            Path again = dir.resolve(base + ".from-journal.json");
            assertEquals(0, cli("replay", journal.resolve(base).toString(), "-o", again.toString()));
            JsonNode replayed = JSON.readTree(again.toFile());
            JsonNode original = JSON.readTree(trace.toFile());
            assertEquals(original.path("traceEvents"), replayed.path("traceEvents"), "the journal's replay of " + base);
            for (String key : List.of("flagtrace_run_capture_range", "flagtrace_run_window", "flagtrace_run_end", "deviceProperties")) {
                assertEquals(original.path(key), replayed.path(key), key);
            }
            InjectedRunTest.assertSameAsReplay(trace);
        }
        run.clean();
        FakeGpuPrograms.delete(dir);
        FakeGpuPrograms.delete(journal);
    }

    @Test
    void cudaProfilerStartToStopGivesOneTracePerWindow() throws Exception {
        Path dir = FakeGpuPrograms.fresh(ROOT, "profiler");
        ProgramRun run = flagtraceRun(dir, List.of("--capture-range", "cudaProfilerApi"), "profiler", "0");
        assertEquals(0, run.finish(), run.stderr());
        assertEquals("span 1: kernels=5 memsets=1 ranges=1 driver=1\nspan 2: kernels=2 memsets=0 ranges=0 driver=0\noutside: kernels=5\n", run.stdout());
        List<Path> traces = FakeGpuPrograms.traces(dir);
        assertEquals(2, traces.size(), run.stderr());
        long pid = pid(traces.get(0));
        assertEquals(List.of("flagtrace-" + pid + "-w1.json", "flagtrace-" + pid + "-w2.json"), FakeGpuPrograms.names(traces),
                "a start while started and a stop while stopped change nothing: " + run.stderr());
        assertHoldsOnlySpan(JSON.readTree(traces.get(0).toFile()), 1, "cudaProfilerApi", run.stdout());
        assertHoldsOnlySpan(JSON.readTree(traces.get(1).toFile()), 2, "cudaProfilerApi", run.stdout());
        run.clean();
        FakeGpuPrograms.delete(dir);
    }

    /** {@code --capture-range-end stop} (nsys's default) and {@code repeat:N}: the first windows only, the program runs on. */
    @Test
    void captureRangeEndKeepsTheFirstWindowsOnly() throws Exception {
        for (String end : List.of("stop", "repeat:1")) {
            Path dir = FakeGpuPrograms.fresh(ROOT, "end-" + end.replace(':', '-'));
            ProgramRun run = flagtraceRun(dir, List.of("--capture-range", "nvtx:step", "--capture-range-end", end), "nvtx", "0");
            assertEquals(0, run.finish(), run.stderr());
            assertEquals("span 1: kernels=6 memsets=1 ranges=3 driver=1\nspan 2: kernels=3 memsets=0 ranges=2 driver=0\noutside: kernels=6\n",
                    run.stdout(), "the program ran on, untouched");
            List<Path> traces = FakeGpuPrograms.traces(dir);
            assertEquals(List.of("flagtrace-" + pid(traces.get(0)) + "-w1.json"), FakeGpuPrograms.names(traces), end + ": " + run.stderr());
            assertHoldsOnlySpan(JSON.readTree(traces.get(0).toFile()), 1, "nvtx:step", run.stdout());
            run.clean();
            FakeGpuPrograms.delete(dir);
        }
        Path dir = FakeGpuPrograms.fresh(ROOT, "end-repeat-2");
        ProgramRun run = flagtraceRun(dir, List.of("--capture-range", "cudaProfilerApi", "--capture-range-end", "repeat:2"), "profiler", "0");
        assertEquals(0, run.finish(), run.stderr());
        assertEquals(2, FakeGpuPrograms.traces(dir).size(), "both of the program's two windows: " + run.stderr());
        run.clean();
        FakeGpuPrograms.delete(dir);
    }

    @Test
    void aWindowHoldsTheDeviceWorkLaunchedInItThatEndsAfterTheRangeCloses() throws Exception {
        Path dir = FakeGpuPrograms.fresh(ROOT, "busy-device");
        // Each kernel runs 20 ms on the fake device: the ranges close long before their kernels end.
        ProgramRun run = flagtraceRun(dir, List.of("--capture-range", "nvtx:step"), List.of("env", "FAKE_CUPTI_KERNEL_NS=20000000",
                program.toString(), "nvtx", "0"));
        assertEquals(0, run.finish(), run.stderr());
        List<Path> traces = FakeGpuPrograms.traces(dir);
        assertEquals(2, traces.size(), run.stderr());
        for (int n = 1; n <= 2; n++) {
            JsonNode trace = JSON.readTree(traces.get(n - 1).toFile());
            assertHoldsOnlySpan(trace, n, "nvtx:step", run.stdout());
            InjectedRunTest.Events e = new InjectedRunTest.Events(trace);
            long rangeEnd = e.named("cpu_op", "step").stream().mapToLong(o -> o.path("ts").asLong() + o.path("dur").asLong()).max().orElseThrow();
            long lastKernelEnd = e.of("kernel").stream().mapToLong(k -> k.path("ts").asLong() + k.path("dur").asLong()).max().orElseThrow();
            assertTrue(lastKernelEnd > rangeEnd + 20_000, "span " + n + "'s last kernel ends well after its range (us): " + lastKernelEnd + " vs " + rangeEnd);
        }
        run.clean();
        FakeGpuPrograms.delete(dir);
    }

    @Test
    void aRangeNeverOpenedLeavesNoTrace() throws Exception {
        Path dir = FakeGpuPrograms.fresh(ROOT, "never");
        ProgramRun run = flagtraceRun(dir, List.of("--capture-range", "nvtx:no such range"), "nvtx", "0");
        assertEquals(0, run.finish(), run.stderr());
        assertEquals(List.of(), FakeGpuPrograms.traces(dir));
        assertTrue(run.stderr().contains("0 traces in " + dir + " (no window was armed)"), run.stderr());
        run.clean();
        FakeGpuPrograms.delete(dir);
    }

    @Test
    void aBadCaptureRangeIsOneLineAndExit2() throws Exception {
        for (String[] bad : List.of(new String[] {"--capture-range", "nvtx:"}, new String[] {"--capture-range", "step"},
                new String[] {"--capture-range", "roctx:step"}, new String[] {"--capture-range", "cudaprofilerapi"},
                new String[] {"--capture-range", "nvtx:step", "--start-later"},
                new String[] {"--capture-range", "cudaProfilerApi", "--delay", "1"},
                new String[] {"--capture-range-end", "stop"}, new String[] {"--capture-range", "nvtx:step", "--capture-range-end", "repeat:0"},
                new String[] {"--capture-range", "nvtx:step", "--capture-range-end", "never"})) {
            Path dir = FakeGpuPrograms.fresh(ROOT, "bad");
            List<String> args = new ArrayList<>(List.of("run", "-d", dir.toString()));
            args.addAll(List.of(bad));
            args.addAll(List.of("--agent-jar", jar.toString(), "--", "true"));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = new FlagtraceCli(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8))
                    .run(args.toArray(String[]::new));
            String said = err.toString(StandardCharsets.UTF_8);
            assertEquals(2, code, String.join(" ", bad) + ": " + said);
            assertEquals(1, said.strip().lines().count(), said);
            assertTrue(said.contains("--capture-range"), said);
            assertEquals("", out.toString(StandardCharsets.UTF_8));
            assertTrue(Files.notExists(dir), "nothing started: " + dir);
        }
    }

    @Test
    void aJournalDirectoryThatIsNotEmptyIsOneLineAndExit2() throws Exception {
        Path dir = FakeGpuPrograms.fresh(ROOT, "journal-bad");
        Path journal = FakeGpuPrograms.fresh(ROOT, "journal-used");
        Files.createDirectories(journal);
        Files.writeString(journal.resolve("something"), "x");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new FlagtraceCli(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8))
                .run("run", "-d", dir.toString(), "--journal", journal.toString(), "--agent-jar", jar.toString(), "--", "true");
        String said = err.toString(StandardCharsets.UTF_8);
        assertEquals(2, code, said);
        assertEquals(1, said.strip().lines().count(), said);
        assertTrue(said.contains("--journal wants a new or empty directory: " + journal + " is not empty"), said);
        assertTrue(Files.notExists(dir), "nothing started");
        FakeGpuPrograms.delete(journal);
    }

    @Test
    void startAndStopDoNotApplyToACaptureRangesRun() throws Exception {
        Path dir = FakeGpuPrograms.fresh(ROOT, "control");
        Files.createDirectories(dir);
        try (InjectedRun run = new InjectedRun(dir, new InjectedRun.OnDemand(false, null, null, "nvtx:step"))) {
            for (String line : List.of("start", "stop", "start 1")) {
                assertEquals("error this run's windows are its capture range's (--capture-range nvtx:step): start and stop do not apply",
                        run.control(line), line);
            }
            assertEquals("nvtx:step", run.environment(null).get("FLAGTRACE_RUN_CAPTURE"));
            assertEquals("later", run.environment(null).get("FLAGTRACE_RUN_START"), "the library starts disarmed");
        }
        FakeGpuPrograms.delete(dir);
    }

    /**
     * The window's trace holds span N's kernels (its own kernel only), memsets and ranges as the program printed them,
     * every arrow paired, no copy (the copies were outside), nothing of the other span or outside, and names its range.
     * Its launches through the driver are there as cuLaunchKernel calls, the only driver calls recorded (cuProfilerStart
     * and cuProfilerStop are driver calls too), and their kernels carry the op they ran in, as the runtime's do.
     */
    private static void assertHoldsOnlySpan(JsonNode trace, int n, String range, String stdout) {
        Matcher m = Pattern.compile("span " + n + ": (.*)").matcher(stdout);
        assertTrue(m.find(), stdout);
        Map<String, Long> counts = InjectedRunTest.counts(m.group(1));
        InjectedRunTest.Events e = new InjectedRunTest.Events(trace);
        assertEquals(counts.get("kernels"), e.count("kernel"), "span " + n + "'s launches");
        assertEquals(counts.get("kernels"), e.named("kernel", "w" + n + "_kernel").size(), "its kernel only");
        assertEquals(counts.get("memsets"), e.count("gpu_memset"));
        assertEquals(counts.get("ranges"), e.count("cpu_op"), "its ranges, as ops");
        assertEquals(0, e.count("gpu_memcpy"), "the copies in and out were outside every window");
        e.assertFlowsPaired(counts.get("kernels") + counts.get("memsets"));
        assertEquals(counts.get("driver"), e.count("cuda_driver"), "span " + n + "'s launches through the driver: " + e.of("cuda_driver"));
        assertEquals(counts.get("driver"), e.named("cuda_driver", "cuLaunchKernel").size(), "no driver call but the launches");
        for (JsonNode launch : e.named("cuda_driver", "cuLaunchKernel")) {
            long correlation = launch.path("args").path("correlation").asLong(-1);
            List<JsonNode> kernel = e.of("kernel").stream().filter(k -> k.path("args").path("correlation").asLong(-2) == correlation).toList();
            assertEquals(1, kernel.size(), "the driver launch's kernel: " + launch);
            JsonNode id = kernel.get(0).path("args").path("External id");
            assertTrue(id.isIntegralNumber(), "the driver launch's kernel carries its op: " + kernel.get(0));
            assertTrue(e.of("cpu_op").stream().anyMatch(o -> o.path("args").path("External id").equals(id)), "an op of the window has " + id);
        }
        assertEquals(range, trace.path("flagtrace_run_capture_range").asText(), "the trace names the range that made it");
        assertEquals(n, trace.path("flagtrace_run_window").asInt());
        assertEquals("stop", trace.path("flagtrace_run_end").asText());
        assertEquals(0, trace.path("flagtrace_run_buffers_dropped").asLong(-1));
        assertEquals(0, trace.path("flagtrace_run_ops_dropped").asLong(-1));
    }

    private static int cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new FlagtraceCli(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(args);
        assertEquals(0, code, out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8));
        return code;
    }

    private static ProgramRun flagtraceRun(Path dir, List<String> options, String... programArgs) throws IOException {
        List<String> command = new ArrayList<>(List.of(program.toString()));
        command.addAll(List.of(programArgs));
        return flagtraceRun(dir, options, command);
    }

    /** {@code flagtrace run OPTIONS -d DIR -- COMMAND} on the CUDA fakes; flagtrace's JVM with Chronicle's flags, as the launcher passes them (--journal). */
    private static ProgramRun flagtraceRun(Path dir, List<String> options, List<String> command) throws IOException {
        return FakeGpuRun.on("cupti", ROOT, jar).withOptions(options).withJvmFlags(List.of("--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
                "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED")).start(dir, command);
    }

    private static long pid(Path trace) {
        Matcher m = Pattern.compile("flagtrace-(\\d+)-w\\d+\\.json").matcher(trace.getFileName().toString());
        assertTrue(m.matches(), trace.toString());
        return Long.parseLong(m.group(1));
    }
}
