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
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.flagos.trace.agent.FlagtraceAgent;
import org.flagos.trace.testing.AgentJars;
import org.flagos.trace.testing.FakeGpuPrograms;
import org.flagos.trace.testing.FakeGpuRun;
import org.flagos.trace.testing.ProgramRun;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * On-demand tracing of a process that is not a JVM: {@code flagtrace run --start-later} with {@code flagtrace
 * start}/{@code stop}, and {@code --delay}/{@code --duration}, on an unchanged C program on the CUDA fakes
 * ({@code src/test/native/cuda/phased_program.c}). The program runs in phases, each launching its own kernel
 * ({@code phaseN_kernel}: N+1 launches, N memsets, one NVTX range "phase N"), and reads a line from its standard
 * input before each: the test arms or disarms between phases, then lets it go on. A window's trace must hold
 * exactly its phase's work and nothing of the others. The same windows on the MSPTI fakes (an Ascend program, its
 * phases mstx ranges: {@code src/test/native/ascend/phased_program.c}), through the preloaded library's shared
 * on-demand code.
 */
class OnDemandRunTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path ROOT = Path.of("target", "agent-test", "on-demand").toAbsolutePath();
    private static final String FOUR_PHASES = "phase 1: kernels=2 memsets=1 ranges=1\nphase 2: kernels=3 memsets=2 ranges=1\n"
            + "phase 3: kernels=4 memsets=3 ranges=1\nphase 4: kernels=5 memsets=4 ranges=1\n";
    private static Path program;
    private static Path ascendProgram;
    private static Path jar;

    @BeforeAll
    static void build() throws Exception {
        Files.createDirectories(ROOT);
        jar = AgentJars.forThisClassPath(ROOT, FlagtraceAgent.class.getName());
        program = FakeGpuPrograms.build("cupti", "cuda/phased_program.c", ROOT.resolve("phased_program"), "-lcudart");
        ascendProgram = FakeGpuPrograms.build("mspti", "ascend/phased_program.c", ROOT.resolve("ascend_phased_program"),
                "-lascendcl -lms_tools_ext");
    }

    @Test
    void oneStartStopWindowHoldsExactlyItsPhase() throws Exception {
        Path dir = FakeGpuPrograms.fresh(ROOT, "one-window");
        ProgramRun run = flagtraceRun(dir, List.of("--start-later"), "3", "7");
        long pid = ready(run);
        go(run, 1); // disarmed: not traced
        assertEquals(0, control("start", Long.toString(pid)), "start PID"); // found through the process's environment
        go(run, 2);
        assertEquals(0, control("stop", "-d", dir.toString()));
        go(run, 3); // disarmed again
        assertEquals(7, run.finish(), run.stderr());
        assertEquals("ready " + pid + "\nphase 1: kernels=2 memsets=1 ranges=1\nphase 2: kernels=3 memsets=2 ranges=1\n"
                + "phase 3: kernels=4 memsets=3 ranges=1\n", run.stdout(), "the program's stdout, untouched");
        assertEquals(List.of("flagtrace-" + pid + "-w1.json"), FakeGpuPrograms.names(FakeGpuPrograms.traces(dir)), run.stderr());
        assertHoldsOnlyPhase(JSON.readTree(dir.resolve("flagtrace-" + pid + "-w1.json").toFile()), 2);
        InjectedRunTest.assertSameAsReplay(dir.resolve("flagtrace-" + pid + "-w1.json"));
        assertTrue(run.stderr().contains("exited with 7; 1 trace: " + dir.resolve("flagtrace-" + pid + "-w1.json")), run.stderr());
        run.clean();
        FakeGpuPrograms.delete(dir);
    }

    @Test
    void twoWindowsGiveTwoTraces() throws Exception {
        Path dir = FakeGpuPrograms.fresh(ROOT, "two-windows");
        // A CUPTI slow to enable (5 ms a kind): each window's start must be answered only once its kinds record, or
        // the phase launched right after the answer is missing from the window.
        ProgramRun run = flagtraceRunAfter(dir, List.of("--start-later"), "export FAKE_CUPTI_ENABLE_DELAY_MS=5 && ", "4", "0");
        long pid = ready(run);
        go(run, 1);
        assertEquals(0, control("start", Long.toString(pid)));
        go(run, 2);
        assertEquals(0, control("stop", Long.toString(pid)));
        go(run, 3);
        assertEquals(0, control("start", "-d", dir.toString())); // every process of the run: the one known
        go(run, 4);
        assertEquals(0, control("stop", "-d", dir.toString()));
        assertEquals(0, run.finish(), run.stderr());
        assertEquals("ready " + pid + "\n" + FOUR_PHASES, run.stdout());
        assertEquals(List.of("flagtrace-" + pid + "-w1.json", "flagtrace-" + pid + "-w2.json"), FakeGpuPrograms.names(FakeGpuPrograms.traces(dir)),
                run.stderr());
        assertHoldsOnlyPhase(JSON.readTree(dir.resolve("flagtrace-" + pid + "-w1.json").toFile()), 2);
        assertHoldsOnlyPhase(JSON.readTree(dir.resolve("flagtrace-" + pid + "-w2.json").toFile()), 4);
        assertTrue(run.stderr().contains("windows armed on demand are not merged"), run.stderr());
        assertTrue(Files.notExists(dir.resolve("merged.json")));
        run.clean();
        FakeGpuPrograms.delete(dir);
    }

    /** On the MSPTI fakes: start/stop twice, two windows, each holding exactly its phase (mstx range, kernels, sets). */
    @Test
    void startAndStopArmAnAscendProgramWindowByWindow() throws Exception {
        Path dir = FakeGpuPrograms.fresh(ROOT, "ascend-windows");
        ProgramRun run = flagtraceRunAfter("mspti", ascendProgram, dir, List.of("--start-later"), "", "4", "6");
        long pid = ready(run);
        go(run, 1);
        assertEquals(0, control("start", Long.toString(pid)));
        go(run, 2);
        assertEquals(0, control("stop", "-d", dir.toString()));
        go(run, 3);
        assertEquals(0, control("start", "-d", dir.toString()));
        go(run, 4);
        assertEquals(0, control("stop", Long.toString(pid)));
        assertEquals(6, run.finish(), run.stderr());
        assertEquals("ready " + pid + "\n" + FOUR_PHASES, run.stdout(), "the program's stdout, untouched");
        assertEquals(List.of("flagtrace-" + pid + "-w1.json", "flagtrace-" + pid + "-w2.json"), FakeGpuPrograms.names(FakeGpuPrograms.traces(dir)),
                run.stderr());
        assertHoldsOnlyPhase(JSON.readTree(dir.resolve("flagtrace-" + pid + "-w1.json").toFile()), 2);
        assertHoldsOnlyPhase(JSON.readTree(dir.resolve("flagtrace-" + pid + "-w2.json").toFile()), 4);
        InjectedRunTest.assertSameAsReplay(dir.resolve("flagtrace-" + pid + "-w2.json"));
        run.clean();
        FakeGpuPrograms.delete(dir);
    }

    /** On the MSPTI fakes: --delay and --duration give one window, the phase run inside it. */
    @Test
    void delayAndDurationGiveOneWindowOfAnAscendProgram() throws Exception {
        Path dir = FakeGpuPrograms.fresh(ROOT, "ascend-delay-duration");
        ProgramRun run = flagtraceRunAfter("mspti", ascendProgram, dir, List.of("--delay", "1", "--duration", "4"), "", "2", "0");
        long pid = ready(run);
        awaitFile(run, dir.resolve("flagtrace-" + pid + "-w1.fltrbuf"));
        go(run, 1);
        awaitFile(run, dir.resolve("flagtrace-" + pid + "-w1.json"));
        go(run, 2);
        assertEquals(0, run.finish(), run.stderr());
        assertEquals(List.of("flagtrace-" + pid + "-w1.json"), FakeGpuPrograms.names(FakeGpuPrograms.traces(dir)), run.stderr());
        assertHoldsOnlyPhase(JSON.readTree(dir.resolve("flagtrace-" + pid + "-w1.json").toFile()), 1);
        run.clean();
        FakeGpuPrograms.delete(dir);
    }

    @Test
    void neverArmedLeavesNoTraceAndNoCapture() throws Exception {
        Path dir = FakeGpuPrograms.fresh(ROOT, "never-armed");
        ProgramRun run = flagtraceRun(dir, List.of("--start-later"), "1", "0");
        long pid = ready(run);
        go(run, 1);
        assertEquals(0, run.finish(), run.stderr());
        assertEquals("ready " + pid + "\nphase 1: kernels=2 memsets=1 ranges=1\n", run.stdout());
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of(), files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("flagtrace-")).toList());
        }
        assertTrue(run.stderr().contains("exited with 0; 0 traces in " + dir + " (no window was armed)"), run.stderr());
        run.clean();
        FakeGpuPrograms.delete(dir);
    }

    @Test
    void delayAndDurationGiveOneWindow() throws Exception {
        Path dir = FakeGpuPrograms.fresh(ROOT, "delay-duration");
        // The copy in runs right after the process connects, a second before the delay arms it.
        ProgramRun run = flagtraceRun(dir, List.of("--delay", "1", "--duration", "4"), "2", "5");
        long pid = ready(run);
        awaitFile(run, dir.resolve("flagtrace-" + pid + "-w1.fltrbuf")); // the delay armed it: the window's capture appears
        go(run, 1);
        awaitFile(run, dir.resolve("flagtrace-" + pid + "-w1.process.json")); // written when the duration closed the window
        // replayed into its trace then, while the program waits for phase 2: not when the tree is done
        awaitFile(run, dir.resolve("flagtrace-" + pid + "-w1.json"));
        go(run, 2);
        assertEquals(5, run.finish(), run.stderr());
        assertEquals("ready " + pid + "\nphase 1: kernels=2 memsets=1 ranges=1\nphase 2: kernels=3 memsets=2 ranges=1\n", run.stdout());
        assertEquals(List.of("flagtrace-" + pid + "-w1.json"), FakeGpuPrograms.names(FakeGpuPrograms.traces(dir)), run.stderr());
        assertHoldsOnlyPhase(JSON.readTree(dir.resolve("flagtrace-" + pid + "-w1.json").toFile()), 1);
        run.clean();
        FakeGpuPrograms.delete(dir);
    }

    /**
     * A process started disarmed on a CUDA 13 driver leaves CUPTI untouched until its first {@code start}: not one CUPTI
     * call of flagtrace's (registration, thread-id type, clock) before then, as the fake CUPTI's log of first calls
     * shows against the program's launches; then each window holds exactly its phase.
     */
    @Test
    void disarmedCuptiIsFirstTouchedAtTheFirstStart() throws Exception {
        Path dir = FakeGpuPrograms.fresh(ROOT, "deferred-register");
        Path log = freshLog("deferred-register.log");
        ProgramRun run = flagtraceRunAfter(dir, List.of("--start-later"), "export FAKE_CUPTI_LOG=" + log + " && ", "3", "0");
        long pid = ready(run);
        go(run, 1); // phase 1's 2 kernels, disarmed
        assertEquals(List.of(), flagtraceCalls(log), "flagtrace called CUPTI while disarmed");
        assertEquals(0, control("start", Long.toString(pid)));
        go(run, 2);
        assertEquals(0, control("stop", Long.toString(pid)));
        assertEquals(0, control("start", Long.toString(pid)));
        go(run, 3);
        assertEquals(0, control("stop", Long.toString(pid)));
        assertEquals(0, run.finish(), run.stderr());
        List<String> calls = flagtraceCalls(log);
        assertEquals("cuptiSetThreadIdType kernels_before=2", calls.get(0), "the thread-id type first, at the first start: " + calls);
        assertTrue(calls.contains("cuptiActivityRegisterCallbacks kernels_before=2"), calls.toString());
        assertTrue(calls.stream().allMatch(c -> Long.parseLong(c.replaceAll(".* kernels_before=", "")) >= 2),
                "no call before the first start: " + calls);
        assertHoldsOnlyPhase(JSON.readTree(dir.resolve("flagtrace-" + pid + "-w1.json").toFile()), 2);
        assertHoldsOnlyPhase(JSON.readTree(dir.resolve("flagtrace-" + pid + "-w2.json").toFile()), 3);
        InjectedRunTest.assertSameAsReplay(dir.resolve("flagtrace-" + pid + "-w1.json"));
        run.clean();
        FakeGpuPrograms.delete(dir);
        Files.delete(log);
    }

    /**
     * A driver older than CUDA 13.0 (where a registration after the context delivered nothing, as the fake CUPTI models
     * it), or {@code FLAGTRACE_RUN_REGISTER=start}: CUPTI is registered at CUDA's initialisation, before any launch, as
     * before, and the window holds its phase.
     */
    @Test
    void anOlderDriverOrRegisterStartRegistersAtCudasInitialisation() throws Exception {
        for (String shell : List.of("export FAKE_CUDA_DRIVER_VERSION=12080 && ", "export FLAGTRACE_RUN_REGISTER=start && ")) {
            Path dir = FakeGpuPrograms.fresh(ROOT, "register-at-start");
            Path log = freshLog("register-at-start.log");
            ProgramRun run = flagtraceRunAfter(dir, List.of("--start-later"), shell + "export FAKE_CUPTI_LOG=" + log + " && ", "2", "0");
            long pid = ready(run);
            assertTrue(flagtraceCalls(log).contains("cuptiActivityRegisterCallbacks kernels_before=0"), shell + flagtraceCalls(log));
            go(run, 1);
            assertEquals(0, control("start", Long.toString(pid)));
            go(run, 2);
            assertEquals(0, control("stop", Long.toString(pid)));
            assertEquals(0, run.finish(), run.stderr());
            List<String> calls = flagtraceCalls(log);
            assertTrue(calls.contains("cuptiSetThreadIdType kernels_before=0"), shell + calls);
            assertTrue(calls.contains("cuptiActivityEnable kernels_before=2"), "enabled at the start: " + shell + calls);
            assertHoldsOnlyPhase(JSON.readTree(dir.resolve("flagtrace-" + pid + "-w1.json").toFile()), 2);
            run.clean();
            FakeGpuPrograms.delete(dir);
            Files.delete(log);
        }
    }

    private static Path freshLog(String name) throws IOException {
        Path log = ROOT.resolve(name);
        Files.deleteIfExists(log);
        return log;
    }

    /** The fake CUPTI's log of first calls (FAKE_CUPTI_LOG) made by flagtrace's injected library: "CALL kernels_before=N". */
    static List<String> flagtraceCalls(Path log) throws IOException {
        if (Files.notExists(log)) {
            return List.of();
        }
        return Files.readAllLines(log).stream().filter(l -> l.contains(" by=libflagtrace_inject.so "))
                .map(l -> l.replace(" by=libflagtrace_inject.so", "")).toList();
    }

    @Test
    void startAndStopSayInOneLineWhenThereIsNoRunToTalkTo() throws Exception {
        assertFails(ExitCodes.USAGE, "name the run: -d DIR", "start");
        Path empty = FakeGpuPrograms.fresh(ROOT, "no-run");
        Files.createDirectories(empty);
        assertFails(ExitCodes.FAILED, "no flagtrace run is running in " + empty, "stop", "-d", empty.toString());
        long self = ProcessHandle.current().pid();
        assertFails(ExitCodes.FAILED, "process " + self + " was not started by flagtrace run", "start", Long.toString(self));
        FakeGpuPrograms.delete(empty);
    }

    private static void assertFails(int code, String said, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = new FlagtraceCli(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(args);
        String text = err.toString(StandardCharsets.UTF_8);
        assertEquals(code, exit, text);
        assertTrue(text.contains(said) && text.strip().lines().count() == 1, text);
        assertEquals("", out.toString(StandardCharsets.UTF_8));
    }

    /** The window's trace holds phase N's kernels, memsets and op, every arrow paired, and nothing else of the program. */
    private static void assertHoldsOnlyPhase(JsonNode trace, int n) {
        InjectedRunTest.Events e = new InjectedRunTest.Events(trace);
        assertEquals(n + 1, e.count("kernel"), "phase " + n + "'s launches");
        assertEquals(n + 1, e.named("kernel", "phase" + n + "_kernel").size(), "its kernel only");
        assertEquals(n, e.count("gpu_memset"));
        assertEquals(0, e.count("gpu_memcpy"), "the copies in and out were outside the window");
        assertEquals(1, e.count("cpu_op"));
        JsonNode op = e.named("cpu_op", "phase " + n).get(0);
        long id = op.path("args").path("External id").asLong();
        for (JsonNode k : e.of("kernel")) {
            assertEquals(id, k.path("args").path("External id").asLong(), "its device time belongs to its range: " + k);
        }
        e.assertFlowsPaired(n + 1 + n);
        assertEquals("stop", trace.path("flagtrace_run_end").asText());
        assertEquals(0, trace.path("flagtrace_run_buffers_dropped").asLong(-1));
        assertEquals(0, trace.path("flagtrace_run_ops_dropped").asLong(-1));
    }

    /** {@code flagtrace start|stop ARGS} in this JVM, as a user runs it beside the run; its exit code. */
    private static int control(String verb, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> all = new ArrayList<>(List.of(verb));
        all.addAll(List.of(args));
        int code = new FlagtraceCli(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(all.toArray(String[]::new));
        String said = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, said + err.toString(StandardCharsets.UTF_8));
        assertTrue(said.startsWith("flagtrace " + verb + ": " + (verb.equals("start") ? "armed 1 process" : "stopped 1 process")),
                said + err.toString(StandardCharsets.UTF_8));
        return code;
    }

    private static long ready(ProgramRun run) throws Exception {
        run.awaitLine("ready ");
        Matcher m = Pattern.compile("ready (\\d+)").matcher(run.stdout());
        assertTrue(m.find(), run.stdout());
        return Long.parseLong(m.group(1));
    }

    /** Lets the program run phase N and waits until it printed what it launched. */
    private static void go(ProgramRun run, int phase) throws Exception {
        run.process().getOutputStream().write("go\n".getBytes(StandardCharsets.US_ASCII));
        run.process().getOutputStream().flush();
        run.awaitLine("phase " + phase + ": ");
    }

    private static void awaitFile(ProgramRun run, Path file) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (Files.notExists(file)) {
            assertTrue(System.nanoTime() < deadline, "never appeared: " + file + ": " + run.stderr());
            Thread.sleep(20);
        }
    }

    /** {@code flagtrace run OPTIONS -d DIR -- sh -c 'eval "$(scripts/fake-gpu-env cupti)" && exec PROGRAM ARGS'}. */
    private static ProgramRun flagtraceRun(Path dir, List<String> options, String... programArgs) throws IOException {
        return flagtraceRunAfter(dir, options, "", programArgs);
    }

    /** The same, with {@code shell} (shell commands ending in {@code &&}, or empty) run before the program. */
    private static ProgramRun flagtraceRunAfter(Path dir, List<String> options, String shell, String... programArgs) throws IOException {
        return flagtraceRunAfter("cupti", program, dir, options, shell, programArgs);
    }

    /** The same on {@code vendor}'s fakes, running {@code phased}. */
    private static ProgramRun flagtraceRunAfter(String vendor, Path phased, Path dir, List<String> options, String shell,
            String... programArgs) throws IOException {
        List<String> command = new ArrayList<>(List.of(phased.toString()));
        command.addAll(List.of(programArgs));
        return FakeGpuRun.on(vendor, ROOT, jar).withOptions(options).withShellBefore(shell).start(dir, command);
    }




}
