package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.flagos.trace.testing.FakeMcpti;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The step schedule on a live tracer over the fake MCPTI library (src/test/native/fake_mcpti.c):
 * the fake writes a kernel record for each launch while a kernel kind is enabled, and says which
 * kinds are enabled and how often Enable and Disable were called. Every step launches one kernel
 * inside one op on the stepping thread; so a trace must hold exactly its cycle's recorded steps,
 * one {@code work} op and one kernel each, and nothing of the waiting or warmup steps.
 */
class ScheduledSessionTest {
    @RegisterExtension
    static final FakeMcpti FAKE = new FakeMcpti();

    @TempDir
    Path dir;

    /** The kinds the fake has enabled now (a bit per kind). */
    private static long enabledKinds() {
        return FAKE.tracer().invoke("fakeStat", 5);
    }

    /** Runs {@code steps} steps: each one kernel in a {@code work} op, the enabled kinds noted at its start. */
    private static List<Long> run(ScheduledSession session, int steps) {
        List<Long> enabled = new ArrayList<>();
        for (int i = 0; i < steps; i++) {
            enabled.add(enabledKinds());
            try (OpScope op = session.op("work")) {
                FAKE.tracer().invoke("fakeLaunchKernel", 0);
            }
            session.step();
        }
        return enabled;
    }

    /** The traces in {@code dir} under torch's TensorBoard names, oldest first (the names' nanoseconds). */
    private List<JsonNode> traces(String suffix) throws Exception {
        Pattern name = Pattern.compile(Pattern.quote(TensorBoardNames.defaultWorker()) + "\\.(\\d+)" + Pattern.quote(suffix));
        TreeMap<Long, Path> byTime = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                var m = name.matcher(p.getFileName().toString());
                assertTrue(m.matches(), "only torch-named traces are left in the directory: " + p.getFileName());
                byTime.put(Long.parseLong(m.group(1)), p);
            }
        }
        List<JsonNode> out = new ArrayList<>();
        for (Path p : byTime.values()) {
            try (InputStream in = suffix.endsWith(".gz") ? new GZIPInputStream(Files.newInputStream(p)) : Files.newInputStream(p)) {
                out.add(TraceJson.MAPPER.readTree(in));
            }
        }
        return out;
    }

    private static List<String> names(JsonNode trace, String category) {
        List<String> out = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if (category.equals(e.path("cat").asText()) && "X".equals(e.path("ph").asText())) {
                out.add(e.get("name").asText());
            }
        }
        return out;
    }

    /** The trace's steps: {@code user_annotation}s, as torch writes them (never a {@code cpu_op}). */
    private static List<String> steps(JsonNode trace) {
        assertTrue(names(trace, "cpu_op").stream().noneMatch(n -> n.startsWith(ScheduledSession.STEP_OP_PREFIX)),
                "no step is a cpu_op");
        return names(trace, "user_annotation").stream().filter(n -> n.startsWith(ScheduledSession.STEP_OP_PREFIX)).toList();
    }

    /** Checks one cycle's trace: its steps, one op and one kernel in each, every kernel inside a step. */
    private static void assertCycle(JsonNode trace, long... stepNumbers) {
        List<String> expected = new ArrayList<>();
        for (long n : stepNumbers) {
            expected.add("ProfilerStep#" + n);
        }
        assertEquals(expected, steps(trace));
        assertEquals(stepNumbers.length, names(trace, "cpu_op").stream().filter("work"::equals).count(), "one op a step");
        assertEquals(stepNumbers.length, names(trace, "kernel").size(), "one kernel a step, none of warmup or wait");
        double first = Double.MAX_VALUE;
        double last = -Double.MAX_VALUE;
        for (JsonNode e : trace.get("traceEvents")) {
            if (e.path("name").asText().startsWith("ProfilerStep#")) {
                first = Math.min(first, e.get("ts").asDouble());
                last = Math.max(last, e.get("ts").asDouble() + e.get("dur").asDouble());
            }
        }
        for (JsonNode e : trace.get("traceEvents")) {
            if ("kernel".equals(e.path("cat").asText())) {
                assertTrue(e.get("ts").asDouble() >= first && e.get("ts").asDouble() <= last + 1, "the kernel is the cycle's: " + e);
            }
        }
    }

    @Test
    void skipWaitWarmupActiveRepeatMakeOneFilePerCycle() throws Exception {
        StepSchedule schedule = StepSchedule.builder().skipFirst(1).waitSteps(1).warmup(1).active(2).repeat(2).build();
        // steps: 0 skip, 1 wait, 2 warmup, 3-4 active, 5 wait, 6 warmup, 7-8 active, then nothing
        List<Long> enabled;
        try (ScheduledSession session = Profiler.start(FAKE.tracer(), ScheduleOptions.in(dir, schedule))) {
            enabled = run(session, 12);
            assertEquals(2, session.cycles());
            assertEquals(12, session.currentStep());
        }
        List<JsonNode> traces = traces(".pt.trace.json");
        assertEquals(2, traces.size());
        assertCycle(traces.get(0), 3, 4);
        assertCycle(traces.get(1), 7, 8);
        // warmup's kernel reached the ring and was dropped by the cycle's window, counted
        for (JsonNode trace : traces) {
            assertEquals(1, trace.get("flagtrace").get("dropped_outside_window").get("kernel").asLong(), "warmup's one kernel");
            assertEquals(0, trace.get("flagtrace").get("dropped_outside_window").get("cpu_op").asLong(), "no op in warmup");
        }
        // no kind armed while skipping or waiting; armed from warmup to the cycle's end
        for (int step = 0; step < 12; step++) {
            boolean armed = step >= 2 && step <= 4 || step >= 6 && step <= 8;
            assertEquals(armed, enabled.get(step) != 0, "step " + step + ": kinds enabled " + Long.toBinaryString(enabled.get(step)));
        }
        assertEquals(0, enabledKinds(), "nothing armed after close");
        long enables = FAKE.tracer().invoke("fakeStat", 6);
        assertTrue(enables > 0 && enables % 2 == 0, "two armings of the same kinds: " + enables);
        assertEquals(enables, FAKE.tracer().invoke("fakeStat", 7), "every Enable undone");
    }

    /**
     * torch 2.11 on the H200 ran the same schedule over the same loop (one op and one kernel a step;
     * benchmarks/device/torch_step_schedule.py): the same number of files, the same steps in each.
     */
    @Test
    void sameFilesAndStepsAsTorchForTheSameSchedule() throws Exception {
        Path reference = Path.of("src/test/resources/torch-reference/step-schedule");
        List<List<String>> torch = new ArrayList<>();
        try (Stream<Path> files = Files.list(reference)) {
            for (Path p : (Iterable<Path>) files.sorted()::iterator) {
                assertTrue(p.getFileName().toString().matches("vm_509\\.\\d{19}\\.pt\\.trace\\.json"), "torch's name: " + p);
                JsonNode trace = TraceJson.MAPPER.readTree(p.toFile());
                torch.add(names(trace, "user_annotation").stream().filter(n -> n.startsWith("ProfilerStep#")).toList());
            }
        }
        assertEquals(List.of(List.of("ProfilerStep#3", "ProfilerStep#4"), List.of("ProfilerStep#7", "ProfilerStep#8")), torch);
        StepSchedule schedule = StepSchedule.builder().skipFirst(1).waitSteps(1).warmup(1).active(2).repeat(2).build();
        try (ScheduledSession session = Profiler.start(FAKE.tracer(), ScheduleOptions.in(dir, schedule))) {
            run(session, 12);
        }
        assertEquals(torch, traces(".pt.trace.json").stream().map(ScheduledSessionTest::steps).toList());
    }

    /**
     * {@code ProfilerStep#N} is a {@code user_annotation} with torch's args (External id, Record function
     * id, Ev Idx); device work the step launches outside any op takes the step's External id, as in
     * torch (the step's {@code record_function} is the innermost scope around the launch), so its time is
     * the step's self device time in the summary the writer made and in the one read back from the
     * trace; the step's span on the stream is a {@code gpu_user_annotation} of its External id.
     */
    @Test
    void aStepIsAUserAnnotationThatOwnsTheDeviceWorkItLaunchesOutsideOps() throws Exception {
        StepSchedule schedule = StepSchedule.builder().active(2).repeat(1).build();
        List<org.flagos.trace.stages.OpSummary> summaries = new CopyOnWriteArrayList<>();
        try (ScheduledSession session = Profiler.start(FAKE.tracer(), ScheduleOptions.in(dir, schedule).onTraceReady(trace -> {
            summaries.add(trace.summary());
            trace.moveTo(dir.resolve("steps" + trace.suffix()));
        }))) {
            for (int i = 0; i < 2; i++) {
                try (OpScope op = session.op("work")) {
                    FAKE.tracer().invoke("fakeLaunchKernel", 0);
                }
                FAKE.tracer().invoke("fakeLaunchKernel", 1); // in the step, outside every op
                session.step();
            }
        }
        Path file = dir.resolve("steps.pt.trace.json");
        JsonNode trace = TraceJson.MAPPER.readTree(file.toFile());
        assertEquals(List.of("ProfilerStep#0", "ProfilerStep#1"), steps(trace));
        java.util.Map<String, Long> stepIds = new java.util.HashMap<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("user_annotation".equals(e.path("cat").asText())) {
                List<String> keys = new ArrayList<>();
                e.get("args").fieldNames().forEachRemaining(keys::add);
                assertEquals(List.of("External id", "Record function id", "Ev Idx"), keys, "torch's args of a step: " + e);
                stepIds.put(e.get("name").asText(), e.get("args").get("External id").asLong());
            }
        }
        int outside = 0;
        for (JsonNode e : trace.get("traceEvents")) {
            if ("kernel".equals(e.path("cat").asText()) && e.get("args").get("grid").get(0).asInt() == 9) { // kernel 1
                assertTrue(stepIds.containsValue(e.get("args").get("External id").asLong()), "the step's id: " + e);
                outside++;
            }
        }
        assertEquals(2, outside);
        List<String> spans = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("gpu_user_annotation".equals(e.path("cat").asText()) && e.get("name").asText().startsWith("ProfilerStep#")) {
                assertEquals((long) stepIds.get(e.get("name").asText()), e.get("args").get("External id").asLong());
                spans.add(e.get("name").asText());
            }
        }
        assertEquals(List.of("ProfilerStep#0", "ProfilerStep#1"), spans.stream().sorted().toList(), "one span a step on its stream");
        // kernel 1 runs 1,600 ns: the step's own device time, in the writer's summary and in the trace's
        org.flagos.trace.stages.OpSummaryRow written = summaries.get(0).row("ProfilerStep#0");
        assertEquals(1.6, written.selfDeviceTimeTotalUs(), 1e-9);
        assertEquals(3.1, written.deviceTimeTotalUs(), 1e-9, "with work's kernel 0 (1,500 ns)");
        org.flagos.trace.report.KeyAveragesRow read = org.flagos.trace.report.KeyAverages.of(
                org.flagos.trace.report.TraceFile.read(file)).row("ProfilerStep#0");
        assertEquals(1, read.count());
        assertEquals(written.selfDeviceTimeTotalUs(), read.selfDeviceUs(), 1e-3);
        assertEquals(written.deviceTimeTotalUs(), read.deviceTotalUs(), 1e-3);
        assertEquals(written.cpuTimeTotalUs(), read.cpuTotalUs(), 1e-3);
    }

    @Test
    void everyCycleTakesTheSessionOptionsTheScheduleWasGiven() throws Exception {
        StepSchedule schedule = StepSchedule.builder().active(1).repeat(2).build();
        try (ScheduledSession session = Profiler.start(FAKE.tracer(), ScheduleOptions.in(dir, schedule))) {
            run(session, 3);
        }
        for (JsonNode trace : traces(".pt.trace.json")) {
            assertFalse(names(trace, "gpu_user_annotation").isEmpty(), "GPU annotation spans by default");
        }
        Path other = dir.resolve("options");
        try (ScheduledSession session = Profiler.start(FAKE.tracer(), ScheduleOptions.in(other, schedule)
                .withoutGpuAnnotations().withRank(3, 8).withStack(4))) {
            run(session, 3);
        }
        List<JsonNode> traces = new ArrayList<>();
        try (Stream<Path> files = Files.list(other)) {
            for (Path p : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".pt.trace.json")).sorted()::iterator) {
                traces.add(TraceJson.MAPPER.readTree(p.toFile()));
            }
        }
        assertEquals(2, traces.size());
        for (JsonNode trace : traces) {
            assertTrue(names(trace, "gpu_user_annotation").isEmpty(), "no spans when the schedule says so");
            assertEquals(3, trace.get("distributedInfo").get("rank").asInt());
            assertEquals(8, trace.get("distributedInfo").get("world_size").asInt());
            boolean stacked = false;
            for (JsonNode e : trace.get("traceEvents")) {
                if ("cpu_op".equals(e.path("cat").asText()) && e.path("args").has("Call stack")) {
                    stacked = true;
                    // the program's frames from the one that opened the op: none of the scheduled session's
                    assertTrue(e.get("args").get("Call stack").asText().startsWith(ScheduledSessionTest.class.getName() + ".run("),
                            e.get("args").get("Call stack").asText());
                }
            }
            assertTrue(stacked, "ops carry their Java stack");
        }
    }

    @Test
    void opsOfARecordedStepCarryTheirArgs() throws Exception {
        StepSchedule schedule = StepSchedule.builder().waitSteps(1).warmup(1).active(1).build();
        Path argsDir = dir.resolve("args");
        org.flagos.trace.model.OpArgs args = org.flagos.trace.model.OpArgs.builder().inputDims(new long[] {4, 8}).build();
        try (ScheduledSession session = Profiler.start(FAKE.tracer(), ScheduleOptions.in(argsDir, schedule))) {
            for (int i = 0; i < 3; i++) {
                try (var op = session.op("work", args)) {
                    FAKE.tracer().invoke("fakeLaunchKernel", 0);
                }
                session.step();
            }
        }
        List<JsonNode> works = new ArrayList<>();
        try (Stream<Path> files = Files.list(argsDir)) {
            for (Path p : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".pt.trace.json"))::iterator) {
                for (JsonNode e : TraceJson.MAPPER.readTree(p.toFile()).get("traceEvents")) {
                    if ("cpu_op".equals(e.path("cat").asText()) && "work".equals(e.path("name").asText())) {
                        works.add(e);
                    }
                }
            }
        }
        assertEquals(1, works.size(), "the one recorded step's op");
        assertEquals("[[4,8]]", works.get(0).get("args").get("Input Dims").toString());
    }

    @Test
    void repeatZeroRunsCyclesUntilTheSessionCloses() throws Exception {
        StepSchedule schedule = StepSchedule.builder().waitSteps(1).warmup(1).active(1).build();
        // N W S, N W S, N W S, N (close)
        try (ScheduledSession session = Profiler.start(FAKE.tracer(), ScheduleOptions.in(dir, schedule))) {
            run(session, 9);
            assertEquals(StepAction.NONE, session.currentAction());
        }
        List<JsonNode> traces = traces(".pt.trace.json");
        assertEquals(3, traces.size());
        assertCycle(traces.get(0), 2);
        assertCycle(traces.get(1), 5);
        assertCycle(traces.get(2), 8);
    }

    @Test
    void everyStepItsOwnCycleWithoutWaitOrWarmup() throws Exception {
        StepSchedule schedule = StepSchedule.builder().active(1).build();
        PrintStream saved = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try (ScheduledSession session = Profiler.start(FAKE.tracer(), ScheduleOptions.in(dir, schedule).gzipped())) {
            run(session, 4);
        } finally {
            System.setErr(saved);
        }
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("warmup 0"), "torch's warning: " + err);
        List<JsonNode> traces = traces(".pt.trace.json.gz");
        assertEquals(5, traces.size(), "steps 0-3, and step 4 that close ended");
        for (int i = 0; i < 4; i++) {
            assertCycle(traces.get(i), i);
        }
        assertEquals(List.of("ProfilerStep#4"), steps(traces.get(4)));
        assertTrue(names(traces.get(4), "kernel").isEmpty());
    }

    @Test
    void closingMidCycleHandsOverWhatWasRecordedAndClosingInWarmupNothing() throws Exception {
        StepSchedule schedule = StepSchedule.builder().warmup(1).active(3).build();
        try (ScheduledSession session = Profiler.start(FAKE.tracer(), ScheduleOptions.in(dir, schedule))) {
            run(session, 2); // step 0 warmup, 1 recorded; closes in step 2
            try (OpScope op = session.op("work")) {
                FAKE.tracer().invoke("fakeLaunchKernel", 0);
            }
        }
        List<JsonNode> traces = traces(".pt.trace.json");
        assertEquals(1, traces.size());
        assertCycle(traces.get(0), 1, 2);

        Path other = dir.resolve("warm");
        try (ScheduledSession session = Profiler.start(FAKE.tracer(), ScheduleOptions.in(other, schedule))) {
            run(session, 0);
            assertEquals(StepAction.WARMUP, session.currentAction());
            assertTrue(enabledKinds() != 0, "armed in warmup");
        }
        assertEquals(0, enabledKinds());
        try (Stream<Path> left = Files.list(other)) {
            assertEquals(List.of(), left.toList(), "a cycle closed in warmup writes nothing");
        }
        Files.delete(other);
    }

    @Test
    void theHandlerGetsEachCycleAndItsFailureIsOneLineAndNoThreadOutlivesTheSession() throws Exception {
        StepSchedule schedule = StepSchedule.builder().warmup(1).active(2).repeat(3).build();
        List<String> seen = new CopyOnWriteArrayList<>();
        TraceReadyHandler handler = trace -> {
            seen.add(trace.cycle() + ":" + trace.firstStep() + "-" + trace.lastStep() + ":" + trace.summary().rows().size());
            assertTrue(Thread.currentThread().getName().equals("flagtrace-trace-ready"));
            if (trace.cycle() == 1) {
                throw new IllegalStateException("disk full\nsecond line");
            }
            trace.moveTo(dir.resolve("cycle-" + trace.cycle() + trace.suffix()));
        };
        PrintStream saved = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        ScheduledSession session = Profiler.start(FAKE.tracer(), ScheduleOptions.in(dir, schedule).onTraceReady(handler));
        try {
            run(session, 10);
        } finally {
            session.close();
            System.setErr(saved);
        }
        assertEquals(List.of("0:1-2:3", "1:4-5:3", "2:7-8:3"), seen, "work, ProfilerStep#a and #b in each summary");
        String line = "flagtrace[schedule] WARNING: cycle 1 (steps 4-5): the trace-ready handler failed:"
                + " IllegalStateException: disk full";
        assertEquals(line + System.lineSeparator(), err.toString(StandardCharsets.UTF_8));
        assertEquals(List.of(line.substring("flagtrace[schedule] WARNING: ".length())), session.failures());
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(List.of("cycle-0.pt.trace.json", "cycle-2.pt.trace.json"),
                    left.map(p -> p.getFileName().toString()).sorted().toList(), "the failed cycle's trace is deleted");
        }
        assertFalse(Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals("flagtrace-trace-ready")),
                "the trace-ready thread ended with the session");
        assertEquals(0, enabledKinds());
    }

    @Test
    void aCycleIsHandedOverWhileTheNextStepsRun() throws Exception {
        StepSchedule schedule = StepSchedule.builder().active(2).repeat(2).build();
        java.util.concurrent.CountDownLatch nextCycleRecorded = new java.util.concurrent.CountDownLatch(1);
        List<Boolean> sawNextCycle = new CopyOnWriteArrayList<>();
        TraceReadyHandler handler = trace -> {
            if (trace.cycle() == 0) { // released by the program from inside cycle 1: only if this runs beside it
                sawNextCycle.add(nextCycleRecorded.await(60, java.util.concurrent.TimeUnit.SECONDS));
            }
            trace.moveTo(dir.resolve("cycle-" + trace.cycle() + trace.suffix()));
        };
        PrintStream saved = System.err;
        System.setErr(new PrintStream(OutputStreamNull.INSTANCE)); // the warmup-0 warning
        try (ScheduledSession session = Profiler.start(FAKE.tracer(), ScheduleOptions.in(dir, schedule).onTraceReady(handler))) {
            run(session, 3); // cycle 0: steps 0-1; step 2 records in cycle 1
            nextCycleRecorded.countDown();
            run(session, 1);
        } finally {
            System.setErr(saved);
        }
        assertEquals(List.of(true), sawNextCycle);
        assertCycle(TraceJson.MAPPER.readTree(dir.resolve("cycle-0.pt.trace.json").toFile()), 0, 1);
        assertCycle(TraceJson.MAPPER.readTree(dir.resolve("cycle-1.pt.trace.json").toFile()), 2, 3);
    }

    @Test
    void stepWaitsOnceTheBacklogOfCompletedCyclesIsFull() throws Exception {
        StepSchedule schedule = StepSchedule.builder().active(1).build(); // every step a cycle
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        TraceReadyHandler handler = trace -> {
            release.await();
            trace.moveTo(dir.resolve("cycle-" + trace.cycle() + trace.suffix()));
        };
        PrintStream saved = System.err;
        System.setErr(new PrintStream(OutputStreamNull.INSTANCE)); // the warmup-0 warning
        java.util.concurrent.atomic.AtomicReference<ScheduledSession> started = new java.util.concurrent.atomic.AtomicReference<>();
        Thread loop = new Thread(() -> { // the thread that starts the session drives its steps
            try (ScheduledSession session = Profiler.start(FAKE.tracer(), ScheduleOptions.in(dir, schedule).onTraceReady(handler))) {
                started.set(session);
                run(session, 6);
            }
        }, "stepping");
        try {
            loop.start();
            // cycle 0 is in the handler, cycles 1 and 2 wait for it; handing over cycle 3 (step 4 begins) waits
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(120);
            while (!(started.get() != null && started.get().currentStep() == 4 && loop.getState() == Thread.State.WAITING)
                    && loop.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(4, started.get().currentStep());
            assertEquals(Thread.State.WAITING, loop.getState());
        } finally {
            release.countDown();
            loop.join();
            System.setErr(saved);
        }
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(7, files.count(), "steps 0-5 and step 6 that close ended");
        }
    }

    /** Discards what is written. */
    private static final class OutputStreamNull extends java.io.OutputStream {
        static final OutputStreamNull INSTANCE = new OutputStreamNull();

        @Override
        public void write(int b) {
        }
    }

    @Test
    void opsOutsideRecordedStepsAreInertAndStepMisuseChangesNothing() throws Exception {
        StepSchedule schedule = StepSchedule.builder().waitSteps(1).warmup(1).active(2).repeat(1).build();
        try (ScheduledSession session = Profiler.start(FAKE.tracer(), ScheduleOptions.in(dir, schedule))) {
            assertEquals(-1, session.op("waiting").externalId(), "inert while waiting");
            session.step();
            assertEquals(-1, session.op("warming").externalId(), "inert in warmup");
            session.step();
            OpScope open = session.op("across");
            assertTrue(open.externalId() >= 0);
            IllegalStateException e = assertThrows(IllegalStateException.class, session::step);
            assertEquals("step() while an op opened inside ProfilerStep#2 is still open on this thread: ProfilerStep#2"
                    + " encloses its step's ops, close them before step()", e.getMessage());
            assertEquals(2, session.currentStep(), "nothing changed");
            open.close();
            Thread other = new Thread(() -> {
                IllegalStateException wrong = assertThrows(IllegalStateException.class, session::step);
                assertTrue(wrong.getMessage().contains("call step() and close() from the thread that drives the steps"),
                        wrong.getMessage());
            });
            other.start();
            other.join();
            assertEquals(2, session.currentStep());
            session.step();
            session.step();
        }
        List<JsonNode> traces = traces(".pt.trace.json");
        assertEquals(1, traces.size());
        assertEquals(List.of("ProfilerStep#2", "ProfilerStep#3"), steps(traces.get(0)));
        assertEquals(List.of("across"), names(traces.get(0), "cpu_op").stream()
                .filter(n -> !n.startsWith("ProfilerStep#")).toList());
    }

    @Test
    void oneSessionAtATime() throws Exception {
        StepSchedule schedule = StepSchedule.builder().active(1).warmup(1).build();
        try (ScheduledSession session = Profiler.start(FAKE.tracer(), ScheduleOptions.in(dir, schedule))) {
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> Profiler.start(FAKE.tracer(), SessionOptions.to(dir.resolve("plain.json"))));
            assertEquals("a profiler session is already active in this process", e.getMessage());
            session.step();
        }
        Profiler.start(FAKE.tracer(), SessionOptions.to(dir.resolve("plain.json"))).close(); // the slot is free again
        assertTrue(Files.exists(dir.resolve("plain.json")));
    }

    @Test
    void tensorBoardNamesAreTorchs() throws Exception {
        String host = Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
        assertEquals(host + "_" + ProcessHandle.current().pid(), TensorBoardNames.defaultWorker());
        Path a = TensorBoardNames.next(dir, "w", ".pt.trace.json");
        assertTrue(a.getFileName().toString().matches("w\\.\\d{19}\\.pt\\.trace\\.json"), a.toString());
        Files.createFile(a);
        Path b = TensorBoardNames.next(dir, "w", ".pt.trace.json");
        assertFalse(a.equals(b), "never over an existing trace");
        assertThrows(IllegalArgumentException.class, () -> TraceReadyHandler.tensorboard(dir, "a/b"));
        assertThrows(IllegalArgumentException.class, () -> TraceReadyHandler.tensorboard(dir, ""));
    }
}
