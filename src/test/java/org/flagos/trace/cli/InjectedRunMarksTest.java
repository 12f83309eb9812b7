package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.flagos.trace.agent.FlagtraceAgent;
import org.flagos.trace.cli.InjectedRunTest.Events;
import org.flagos.trace.ingest.CaptureSidecars;
import org.flagos.trace.testing.AgentJars;
import org.flagos.trace.testing.FakeGpuPrograms;
import org.flagos.trace.testing.FakeGpuRun;
import org.flagos.trace.testing.ProgramRun;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code flagtrace run -- CMD}: the marks an unchanged program puts on its threads (NVTX's {@code nvtxMarkA},
 * {@code nvtxMarkW}, {@code nvtxMarkEx}, {@code nvtxDomainMarkEx}; mstx's {@code mstxMarkA}) are instants of the trace
 * on the thread that made them ({@code "ph":"i"}, {@code "s":"t"}, {@code cpu_instant_event}), never ops, on the fakes.
 */
class InjectedRunMarksTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path ROOT = Path.of("target", "agent-test", "inject-marks").toAbsolutePath();
    private static final String LONG = "L".repeat(1 << 16);
    private static Path cudaMarks;
    private static Path ascendMarks;
    private static Path jar;

    @BeforeAll
    static void build() throws Exception {
        Files.createDirectories(ROOT);
        jar = AgentJars.forThisClassPath(ROOT, FlagtraceAgent.class.getName());
        cudaMarks = FakeGpuPrograms.build("cupti", "cuda/marks_program.c", ROOT.resolve("marks_program"), "-lcudart -lpthread");
        ascendMarks = FakeGpuPrograms.build("mspti", "ascend/marks_program.c", ROOT.resolve("ascend_marks_program"),
                "-lascendcl -lms_tools_ext");
    }

    @Test
    void everyNvtxMarkIsAnInstantOnItsThreadBetweenTheRangesAroundIt() throws Exception {
        Path dir = FakeGpuPrograms.fresh(ROOT, "nvtx-marks");
        ProgramRun run = FakeGpuRun.on("cupti", ROOT, jar).start(dir, List.of(cudaMarks.toString(), "3"));
        assertEquals(0, run.finish(), run.stderr());
        assertEquals("kernels=4 ranges=4 marks=15\n", run.stdout());
        List<Path> traces = FakeGpuPrograms.traces(dir);
        assertEquals(1, traces.size(), run.stderr());
        JsonNode trace = JSON.readTree(traces.get(0).toFile());
        Events e = new Events(trace);
        List<JsonNode> marks = instants(e);
        Map<String, Integer> names = new TreeMap<>();
        for (JsonNode m : marks) {
            names.merge(m.path("name").asText(), 1, Integer::sum);
            assertEquals("cpu_instant_event", m.path("cat").asText(), m.toString());
            assertEquals("t", m.path("s").asText(), m.toString());
            assertFalse(m.has("dur"), m.toString());
        }
        assertEquals(Map.of("tick", 3, "in step", 3, "wide \u00b5s", 3, "ex mark", 3, "registered mark", 1, LONG, 1, "worker", 1),
                names, "every mark made after the first CUDA call, by its message ('before init' came before the window);"
                        + " the 70,000-byte message cut at 64 KiB as a range's name is");
        for (JsonNode m : marks) {
            assertEquals(m.path("name").asText().equals("registered mark") ? "{\"domain\":\"app\"}" : "",
                    m.has("args") ? m.path("args").toString() : "", "only the domain mark has args: " + m.path("name"));
        }
        assertEquals(4, e.count("cpu_op"), "marks are not ops: one op per range");
        List<JsonNode> steps = sortedByTs(e.named("cpu_op", "step"));
        assertEquals(3, steps.size());
        JsonNode work = e.named("cpu_op", "work").get(0);
        long mainTid = steps.get(0).path("tid").asLong();
        assertNotEquals(mainTid, work.path("tid").asLong(), "the worker's range is on its own thread");
        for (int i = 0; i < 3; i++) { // each step holds its three marks in the order made; its tick comes before it
            JsonNode step = steps.get(i);
            double start = step.path("ts").asDouble();
            double end = start + step.path("dur").asDouble();
            List<JsonNode> inside = marks.stream().filter(m -> m.path("tid").asLong() == mainTid
                    && m.path("ts").asDouble() >= start && m.path("ts").asDouble() <= end).toList();
            assertEquals(List.of("in step", "wide \u00b5s", "ex mark"), sortedByTs(inside).stream().map(m -> m.path("name").asText()).toList(),
                    "step " + i);
            for (JsonNode m : inside) {
                assertEquals(step.path("pid").asLong(), m.path("pid").asLong(), "on the row of the thread's ops: " + m);
            }
            JsonNode tick = sortedByTs(named(marks, "tick")).get(i);
            assertTrue(tick.path("ts").asDouble() <= start && (i == 0 || tick.path("ts").asDouble()
                    >= steps.get(i - 1).path("ts").asDouble() + steps.get(i - 1).path("dur").asDouble()), "tick " + i + " between steps");
            assertEquals(mainTid, tick.path("tid").asLong());
        }
        JsonNode worker = named(marks, "worker").get(0);
        assertEquals(work.path("tid").asLong(), worker.path("tid").asLong(), "the worker's mark is on its thread's row");
        assertEquals(work.path("pid").asLong(), worker.path("pid").asLong());
        assertTrue(worker.path("ts").asDouble() >= work.path("ts").asDouble()
                && worker.path("ts").asDouble() <= work.path("ts").asDouble() + work.path("dur").asDouble(), worker.toString());
        assertEquals(15, trace.path("flagtrace").path("annotations").path("marks").asLong(-1),
                trace.path("flagtrace").toString());
        assertEquals(0, trace.path("flagtrace_run_marks_dropped").asLong(-1));
        assertEquals(0, trace.path("flagtrace_run_ops_dropped").asLong(-1));
        InjectedRunTest.assertSameAsReplay(traces.get(0));
        assertOtherFormatsCarryTheMarks(traces.get(0), 15);
        assertSummaryUnchangedByMarks(traces.get(0));
        assertJournalCarriesTheMarks(traces.get(0));
        run.clean();
        FakeGpuPrograms.delete(dir);
    }

    /**
     * A mark that does not fit the hand-off is dropped, never waited for, and counted: with a 60,000-byte hand-off the
     * 70,000-byte mark never fits, and the trace's marks and {@code flagtrace_run_marks_dropped} add up to the
     * program's.
     */
    @Test
    void aMarkThatDoesNotFitTheHandOffIsCountedInTheTrace() throws Exception {
        Path dir = FakeGpuPrograms.fresh(ROOT, "nvtx-marks-full");
        ProgramRun run = FakeGpuRun.on("cupti", ROOT, jar)
                .start(dir, List.of("env", "FLAGTRACE_RUN_QUEUE_BYTES=60000", cudaMarks.toString(), "3"));
        assertEquals(0, run.finish(), run.stderr());
        assertEquals("kernels=4 ranges=4 marks=15\n", run.stdout());
        List<Path> traces = FakeGpuPrograms.traces(dir);
        assertEquals(1, traces.size(), run.stderr());
        JsonNode trace = JSON.readTree(traces.get(0).toFile());
        List<JsonNode> marks = instants(new Events(trace));
        long dropped = trace.path("flagtrace_run_marks_dropped").asLong(-1);
        assertEquals(List.of(), named(marks, LONG), "the long mark is not in the trace");
        assertTrue(dropped >= 1, "the long mark is counted: " + dropped);
        assertEquals(15, marks.size() + dropped, "every mark the program made is in the trace or counted");
        assertEquals(marks.size(), trace.path("flagtrace").path("annotations").path("marks").asLong(-1));
        InjectedRunTest.assertSameAsReplay(traces.get(0));
        run.clean();
        FakeGpuPrograms.delete(dir);
    }

    /** With a capture range, a mark made while disarmed (between the windows) is in no trace; each window has its own. */
    @Test
    void aMarkMadeOutsideEveryWindowIsInNoTrace() throws Exception {
        Path dir = FakeGpuPrograms.fresh(ROOT, "nvtx-marks-window");
        ProgramRun run = FakeGpuRun.on("cupti", ROOT, jar).withOptions(List.of("--capture-range", "nvtx:step"))
                .start(dir, List.of(cudaMarks.toString(), "3"));
        assertEquals(0, run.finish(), run.stderr());
        List<Path> traces = FakeGpuPrograms.traces(dir);
        assertEquals(3, traces.size(), run.stderr());
        for (Path t : traces) {
            Events e = new Events(JSON.readTree(t.toFile()));
            assertEquals(List.of("in step", "wide \u00b5s", "ex mark"),
                    sortedByTs(instants(e)).stream().map(m -> m.path("name").asText()).toList(), t.toString());
            InjectedRunTest.assertSameAsReplay(t);
        }
        run.clean();
        FakeGpuPrograms.delete(dir);
    }

    @Test
    void everyMstxMarkIsAnInstantOnItsThread() throws Exception {
        Path dir = FakeGpuPrograms.fresh(ROOT, "mstx-marks");
        ProgramRun run = FakeGpuRun.on("mspti", ROOT, jar).start(dir, List.of(ascendMarks.toString(), "4"));
        assertEquals(0, run.finish(), run.stderr());
        assertEquals("kernels=4 ranges=4 marks=8\n", run.stdout());
        List<Path> traces = FakeGpuPrograms.traces(dir);
        assertEquals(1, traces.size(), run.stderr());
        JsonNode trace = JSON.readTree(traces.get(0).toFile());
        Events e = new Events(trace);
        List<JsonNode> steps = sortedByTs(e.named("cpu_op", "step"));
        assertEquals(4, steps.size());
        assertEquals(4, e.count("cpu_op"), "marks are not ops");
        List<JsonNode> marks = sortedByTs(instants(e));
        assertEquals(8, marks.size());
        for (int i = 0; i < 4; i++) {
            JsonNode step = steps.get(i);
            JsonNode tick = marks.get(2 * i);
            JsonNode inStep = marks.get(2 * i + 1);
            assertEquals("tick", tick.path("name").asText());
            assertEquals("in step", inStep.path("name").asText());
            assertTrue(tick.path("ts").asDouble() <= step.path("ts").asDouble(), tick.toString());
            assertTrue(inStep.path("ts").asDouble() >= step.path("ts").asDouble()
                    && inStep.path("ts").asDouble() <= step.path("ts").asDouble() + step.path("dur").asDouble(), inStep.toString());
            assertEquals(step.path("tid").asLong(), inStep.path("tid").asLong());
            assertEquals(step.path("pid").asLong(), inStep.path("pid").asLong());
        }
        assertEquals(0, trace.path("flagtrace_run_marks_dropped").asLong(-1));
        InjectedRunTest.assertSameAsReplay(traces.get(0));
        run.clean();
        FakeGpuPrograms.delete(dir);
    }

    /** The trace's thread instants (marks), in file order: not the trace's global ones (its window's start and end). */
    private static List<JsonNode> instants(Events e) {
        return e.all().stream().filter(x -> "i".equals(x.path("ph").asText()) && !"g".equals(x.path("s").asText())).toList();
    }

    private static List<JsonNode> named(List<JsonNode> events, String name) {
        return events.stream().filter(x -> name.equals(x.path("name").asText())).toList();
    }

    private static List<JsonNode> sortedByTs(List<JsonNode> events) {
        List<JsonNode> sorted = new ArrayList<>(events);
        sorted.sort(Comparator.comparingDouble(x -> x.path("ts").asDouble()));
        return sorted;
    }

    /** Replays the window's capture into Perfetto's format and Parquet: the replay says it drew the marks in each. */
    private static void assertOtherFormatsCarryTheMarks(Path trace, int marks) throws IOException {
        Path capture = trace.resolveSibling(trace.getFileName().toString().replaceFirst("\\.json$", ".fltrbuf"));
        for (String suffix : List.of(".pftrace", ".parquet")) {
            Path out = trace.resolveSibling("formats" + suffix);
            Said replay = cli("replay", capture.toString(), "-o", out.toString());
            assertEquals(0, replay.code(), suffix + ": " + replay.text());
            assertTrue(replay.text().contains("0 ranges, " + marks + " marks"), suffix + ": " + replay.text());
            Files.delete(out);
        }
    }

    /**
     * The window's capture journaled ({@code replay --journal}) and the journal replayed give the trace the capture's
     * replay gives, marks included: the journal holds them as its own documents.
     */
    private static void assertJournalCarriesTheMarks(Path trace) throws IOException {
        Path capture = trace.resolveSibling(trace.getFileName().toString().replaceFirst("\\.json$", ".fltrbuf"));
        Path journal = trace.resolveSibling("journal");
        Path direct = trace.resolveSibling("direct.json");
        Path exported = trace.resolveSibling("exported.json");
        Said journaled = cli("replay", capture.toString(), "--journal", journal.toString(), "-o", direct.toString());
        assertEquals(0, journaled.code(), journaled.text());
        Said replayed = cli("replay", journal.toString(), "-o", exported.toString());
        assertEquals(0, replayed.code(), replayed.text());
        JsonNode fromCapture = JSON.readTree(direct.toFile());
        JsonNode fromJournal = JSON.readTree(exported.toFile());
        assertEquals(15, instants(new Events(fromJournal)).size(), "the journal's replay draws every mark");
        assertEquals(fromCapture.path("traceEvents"), fromJournal.path("traceEvents"), "the same events as the capture's replay");
        Files.delete(direct);
        Files.delete(exported);
        FakeGpuPrograms.delete(journal);
    }

    /**
     * The op summary of the trace equals that of the same trace without its marks (the capture replayed with its
     * marks file set aside): marks are in no op's time or count.
     */
    private static void assertSummaryUnchangedByMarks(Path trace) throws IOException {
        Path capture = trace.resolveSibling(trace.getFileName().toString().replaceFirst("\\.json$", ".fltrbuf"));
        Path marks = CaptureSidecars.MARKS.besides(capture);
        Path aside = marks.resolveSibling("aside.jsonl");
        Path without = trace.resolveSibling("without-marks.json");
        Files.move(marks, aside);
        try {
            assertEquals(0, cli("replay", capture.toString(), "-o", without.toString()).code());
        } finally {
            Files.move(aside, marks);
        }
        JsonNode withoutTrace = JSON.readTree(without.toFile());
        assertEquals(0, instants(new Events(withoutTrace)).size(), "the marks come from the marks file alone");
        assertEquals(eventsBut(JSON.readTree(trace.toFile())), eventsBut(withoutTrace), "the same events but the marks");
        Said with = cli("summary", trace.toString());
        Said none = cli("summary", without.toString());
        assertEquals(0, with.code(), with.text());
        assertEquals(none.text().replace(without.toString(), "TRACE"), with.text().replace(trace.toString(), "TRACE"));
        Files.delete(without);
    }

    /** The trace's events but its marks, each as its text, sorted. */
    private static List<String> eventsBut(JsonNode trace) {
        List<String> out = new ArrayList<>();
        for (JsonNode x : trace.path("traceEvents")) {
            if (!"i".equals(x.path("ph").asText()) || "g".equals(x.path("s").asText())) {
                out.add(x.toString());
            }
        }
        out.sort(null);
        return out;
    }

    private record Said(int code, String text) {
    }

    private static Said cli(String... args) {
        ByteArrayOutputStream said = new ByteArrayOutputStream();
        PrintStream to = new PrintStream(said, true, StandardCharsets.UTF_8);
        int code = new FlagtraceCli(to, to).run(args);
        return new Said(code, said.toString(StandardCharsets.UTF_8));
    }
}
