package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.flagos.trace.agent.FlagtraceAgent;
import org.flagos.trace.cli.InjectedRunTest.Events;
import org.flagos.trace.testing.AgentJars;
import org.flagos.trace.testing.FakeGpuPrograms;
import org.flagos.trace.testing.FakeGpuRun;
import org.flagos.trace.testing.ProgramRun;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code flagtrace run -- CMD} on Ascend's MSPTI, which has no injection hook: an unchanged C program,
 * linked against the fake ACL runtime and mstx that {@code scripts/fake-gpu-env mspti} builds, traced
 * through flagtrace's library that {@code run} preloads (it loads the fake MSPTI, whose records the ACL
 * calls make, turns mstx ranges into ops and hands MSPTI's buffers over the same socket, in the same
 * wire format, to the same receiver as the CUDA path). flagtrace runs as its own process, as a user runs
 * it, so that the program's standard output and exit code can be checked as they reach the caller.
 */
class InjectedMsptiRunTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path ROOT = Path.of("target", "agent-test", "inject-mspti").toAbsolutePath();
    private static Path program;
    private static Path jar;

    @BeforeAll
    static void build() throws Exception {
        Files.createDirectories(ROOT);
        jar = AgentJars.forThisClassPath(ROOT, FlagtraceAgent.class.getName());
        program = FakeGpuPrograms.build("mspti", "ascend/unchanged_program.c", ROOT.resolve("unchanged_program"), "-lascendcl -lms_tools_ext");
    }

    @Test
    void theTraceHoldsWhatTheProgramDidWithEachDeviceRecordInItsInnermostRange() throws Exception {
        Path dir = FakeGpuPrograms.fresh(ROOT, "c-program");
        // Logical device 0 is physical 3: MSPTI's records carry 3, the trace the program's 0, as in-process.
        ProgramRun run = flagtraceRun(dir, List.of("env", "ASCEND_RT_VISIBLE_DEVICES=3,0", program.toString(), "5", "3"));
        assertEquals(3, run.finish(), run.stderr());
        String out = run.stdout();
        assertEquals("kernels=16 memcpys=2 memsets=5 ranges=14\n", out, "the program's stdout, untouched");
        List<Path> traces = FakeGpuPrograms.traces(dir);
        JsonNode trace = oneTraceOfWhatTheProgramDid(run, dir, 5);
        Events e = new Events(trace);
        // The device time of each record belongs to the innermost range open at its call: matmul and the memset
        // in "compute", relu in "step" (once in "late", which outlived "early" opened around it), copies in "io".
        Map<Long, String> opOfId = new HashMap<>();
        for (JsonNode op : e.of("cpu_op")) {
            opOfId.put(op.path("args").path("External id").asLong(), op.path("name").asText());
        }
        Map<String, Integer> relu = new HashMap<>();
        for (JsonNode k : e.of("kernel")) {
            assertEquals(0, k.path("args").path("device").asInt(-1), "the logical device, through the process's mapping: " + k);
            String op = opOfId.get(k.path("args").path("External id").asLong());
            if (k.path("name").asText().equals("matmul_kernel")) {
                assertEquals("compute", op, k.toString());
            } else {
                assertEquals("relu_kernel", k.path("name").asText(), "kernel names from the strings handed over: " + k);
                relu.merge(op, 1, Integer::sum);
            }
        }
        assertEquals(Map.of("step", 5, "late", 1), relu);
        for (JsonNode m : e.of("gpu_memset")) {
            assertEquals("compute", opOfId.get(m.path("args").path("External id").asLong()), m.toString());
        }
        for (JsonNode m : e.of("gpu_memcpy")) {
            assertEquals("io", opOfId.get(m.path("args").path("External id").asLong()), m.toString());
        }
        assertTrue(trace.path("flagtrace_run_buffers").asLong() > 1, "the fake's small buffers, each handed over: " + trace.path("flagtrace_run_buffers"));
        assertTrue(run.stderr().contains("exited with 3; 1 trace: " + traces.get(0)), run.stderr());
        run.clean();
        FakeGpuPrograms.delete(dir);
    }

    @Test
    void aProgramThatLoadsAclAfterItStartedIsTracedFromThatLoadOn() throws Exception {
        // As a Python program importing torch_npu: the executable links no ACL; a library loaded later does.
        Path library = FakeGpuPrograms.build("mspti", "ascend/unchanged_program.c", ROOT.resolve("libascend_program.so"),
                "-shared -fPIC -Dmain=ascend_program -lascendcl -lms_tools_ext");
        Path loader = FakeGpuPrograms.build("mspti", "ascend/late_loader.c", ROOT.resolve("late_loader"), "-ldl");
        Path dir = FakeGpuPrograms.fresh(ROOT, "late-acl");
        ProgramRun run = flagtraceRun(dir, List.of(loader.toString(), library.toString(), "4", "5"));
        assertEquals(5, run.finish(), run.stderr());
        String out = run.stdout();
        assertEquals("kernels=13 memcpys=2 memsets=4 ranges=12\n", out, "the program's stdout, untouched");
        oneTraceOfWhatTheProgramDid(run, dir, 4); // armed at the load of ACL; its mstx calls reach the preload
        run.clean();
        FakeGpuPrograms.delete(dir);
    }

    @Test
    void aKilledProgramLeavesEveryBufferItHandedOverAndSaysItEndedWithoutAStop() throws Exception {
        Path dir = FakeGpuPrograms.fresh(ROOT, "killed");
        ProgramRun run = flagtraceRun(dir, "200", "0", "hang");
        run.awaitLine("ready ");
        Matcher m = Pattern.compile("ready (\\d+)").matcher(run.stdout());
        assertTrue(m.find(), run.stdout());
        long pid = Long.parseLong(m.group(1));
        long launched = InjectedRunTest.counts(run.stdout()).get("kernels");
        // The hand-off is asynchronous: let the program's sender thread catch up (the capture stops growing), then kill.
        Path capture = dir.resolve("flagtrace-" + pid + ".fltrbuf");
        long size = -1;
        for (int i = 0; i < 100 && (!Files.exists(capture) || Files.size(capture) != size); i++) {
            size = Files.exists(capture) ? Files.size(capture) : -1;
            Thread.sleep(300);
        }
        assertTrue(ProcessHandle.of(pid).orElseThrow().destroyForcibly(), "SIGKILL");
        assertEquals(128 + 9, run.finish(), "the program's own end (killed by signal 9): " + run.stderr());
        List<Path> traces = FakeGpuPrograms.traces(dir);
        assertEquals(1, traces.size(), run.stderr());
        JsonNode trace = JSON.readTree(traces.get(0).toFile());
        assertTrue(trace.path("flagtrace_run_end").asText().startsWith("the process ended without a stop"), trace.path("flagtrace_run_end").toString());
        // Every kernel record of every buffer handed over reached the trace. The fake MSPTI completes its buffers of
        // five records two at a time: at most the current one and one waiting (ten records) died with the process.
        long received = kernelRecords(capture);
        assertTrue(received >= launched - 10 && received <= launched, launched + " launches, less the buffers not completed: " + received);
        assertEquals(received, new Events(trace).count("kernel"));
        run.clean();
        FakeGpuPrograms.delete(dir);
    }

    /** The kernel records (KERNEL, kind 2) in a capture's MSPTI buffers (vendor 2), walked by the header's record sizes. */
    private static long kernelRecords(Path capture) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(capture)).order(ByteOrder.LITTLE_ENDIAN);
        Map<Integer, Integer> sizes = Map.of(2, 56, 6, 56, 7, 56, 8, 24, 10, 48, 12, 48);
        long kernels = 0;
        for (int at = 8; at + 16 <= b.limit(); ) {
            assertEquals(2, b.getInt(at), "a frame of MSPTI's vendor id");
            int end = at + 16 + (int) b.getLong(at + 8);
            for (int r = at + 16; r < end; r += sizes.get(b.getInt(r))) {
                kernels += b.getInt(r) == 2 ? 1 : 0;
            }
            at = end;
        }
        return kernels;
    }

    @Test
    void withoutFlagtraceTheProgramRunsUntracedWithItsOutputAndCode() throws Exception {
        // The preloaded library under no run (no socket variable): mstx goes on to libms_tools_ext, libmspti is never loaded.
        Path library = Path.of(InjectedRun.class.getResource("/flagtrace-inject/libflagtrace_mspti.so").toURI());
        ProcessBuilder pb = new ProcessBuilder("sh", "-c", "eval \"$(scripts/fake-gpu-env mspti)\" && exec \"$0\" \"$@\"",
                program.toString(), "3", "4");
        pb.environment().put("LD_PRELOAD", library.toString());
        pb.environment().remove(InjectedRun.SOCKET_VARIABLE);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(4, p.exitValue(), err);
        assertEquals("kernels=10 memcpys=2 memsets=3 ranges=10\n", out);
        assertEquals("", err);
    }

    @Test
    void anMstxCaptureRangeGivesOneTracePerStepHoldingExactlyItsWork() throws Exception {
        Path dir = FakeGpuPrograms.fresh(ROOT, "capture-range");
        ProgramRun run = flagtraceRun(dir, List.of("--capture-range", "mstx:step"), List.of(program.toString(), "3", "0"));
        assertEquals(0, run.finish(), run.stderr());
        String out = run.stdout();
        assertEquals("kernels=10 memcpys=2 memsets=3 ranges=10\n", out, "the program's stdout, untouched");
        Map<String, Long> counts = InjectedRunTest.counts(out);
        List<Path> traces = FakeGpuPrograms.traces(dir);
        assertEquals(3, traces.size(), "a window per range \"step\": " + run.stderr());
        long kernels = 0;
        long memsets = 0;
        for (Path t : traces) {
            JsonNode trace = JSON.readTree(t.toFile());
            Events e = new Events(trace);
            // Each step: 2 matmul in "compute", a memset in "compute", relu in "step"; no copy ("io"), no other range.
            assertEquals(2, e.named("kernel", "matmul_kernel").size(), t + ": " + run.stderr());
            assertEquals(1, e.named("kernel", "relu_kernel").size(), t.toString());
            assertEquals(1, e.count("gpu_memset"));
            assertEquals(0, e.count("gpu_memcpy"), "the copies were in \"io\", outside every step");
            assertEquals(List.of("compute", "step"), e.of("cpu_op").stream().map(o -> o.path("name").asText()).sorted().toList());
            e.assertFlowsPaired(4);
            assertEquals("mstx:step", trace.path("flagtrace_run_capture_range").asText());
            assertEquals("stop", trace.path("flagtrace_run_end").asText());
            kernels += e.count("kernel");
            memsets += e.count("gpu_memset");
        }
        assertEquals(counts.get("kernels") - 1, kernels, "every kernel but the one in \"late\", after the steps");
        assertEquals(counts.get("memsets"), memsets);
        run.clean();
        FakeGpuPrograms.delete(dir);
    }

    /** {@code flagtrace run -d DIR -- sh -c 'eval "$(scripts/fake-gpu-env mspti)" && exec PROGRAM ARGS'}, as a user without an NPU runs it. */
    /**
     * The one trace in {@code dir} of {@code unchanged_program ITERATIONS}: as many kernels, copies, sets and ops (one
     * per mstx range) as the program printed, every flow arrow paired, ended by a stop with nothing dropped, and the
     * same as the replay of its capture.
     */
    private static JsonNode oneTraceOfWhatTheProgramDid(ProgramRun run, Path dir, int iterations) throws IOException {
        Map<String, Long> counts = InjectedRunTest.counts(run.stdout());
        List<Path> traces = FakeGpuPrograms.traces(dir);
        assertEquals(1, traces.size(), "one trace: the program's, none for the shell before its exec: " + run.stderr());
        JsonNode trace = JSON.readTree(traces.get(0).toFile());
        Events e = new Events(trace);
        assertEquals(counts.get("kernels"), e.count("kernel"), run.stderr());
        assertEquals(counts.get("memcpys"), e.count("gpu_memcpy"));
        assertEquals(counts.get("memsets"), e.count("gpu_memset"));
        assertEquals(counts.get("ranges"), e.count("cpu_op"), "one op per mstx range");
        assertEquals(iterations, e.named("cpu_op", "step").size());
        assertEquals(iterations, e.named("cpu_op", "compute").size());
        assertEquals(2, e.named("cpu_op", "io").size());
        e.assertFlowsPaired(counts.get("kernels") + counts.get("memcpys") + counts.get("memsets"));
        assertEquals("stop", trace.path("flagtrace_run_end").asText());
        assertEquals(0, trace.path("flagtrace_run_buffers_dropped").asLong(-1));
        assertEquals(0, trace.path("flagtrace_run_ops_dropped").asLong(-1));
        InjectedRunTest.assertSameAsReplay(traces.get(0));
        return trace;
    }

    private static ProgramRun flagtraceRun(Path dir, String... programArgs) throws IOException {
        List<String> command = new ArrayList<>(List.of(program.toString()));
        command.addAll(List.of(programArgs));
        return flagtraceRun(dir, command);
    }

    private static ProgramRun flagtraceRun(Path dir, List<String> command) throws IOException {
        return flagtraceRun(dir, List.of(), command);
    }

    private static ProgramRun flagtraceRun(Path dir, List<String> options, List<String> command) throws IOException {
        return FakeGpuRun.on("mspti", ROOT, jar).withOptions(options).start(dir, command);
    }
}
