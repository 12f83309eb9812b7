package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.flagos.trace.model.DeviceTracer;
import org.flagos.trace.model.HostOpMarker;
import org.flagos.trace.model.UnavailableTracer;
import org.flagos.trace.model.Workload;
import org.flagos.trace.testing.FakeMcpti;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code record} in one piece ({@code -o}) without a GPU: its tracer the fake MCPTI library's, its workloads this
 * test's ({@link RecordCommand.Live}). One trace with its summary, buffer dump and journal, the dump and the journal
 * replaying to the same events; the refusals (no such workload, outputs in each other's way, no tracer here) and a
 * workload that fails or cannot load CUDA: one line, nothing left behind. {@code record --schedule} is
 * {@link RecordScheduleTest}'s.
 */
class RecordCommandTest {
    @RegisterExtension
    static final FakeMcpti FAKE = new FakeMcpti();

    @TempDir
    Path dir;

    /** A workload of this test: its name, what it says it does, and its body. */
    private record Script(String name, String description, Body body) implements Workload {
        interface Body {
            void run(HostOpMarker ops) throws Exception;
        }

        @Override
        public void run(HostOpMarker ops) throws Exception {
            body.run(ops);
        }
    }

    /** Two kernels in a {@code work} op. */
    private static void work(HostOpMarker ops) {
        try (HostOpMarker.Scope op = ops.op("work")) {
            FAKE.tracer().invoke("fakeLaunchKernel", 0);
            FAKE.tracer().invoke("fakeLaunchKernel", 0);
        }
    }

    private static final Map<String, Script> WORKLOADS = Map.of(
            "twice", new Script("twice", "two kernels in an op", RecordCommandTest::work),
            "broken", new Script("broken", "fails after its kernels", ops -> {
                work(ops);
                throw new IllegalStateException("the workload broke");
            }),
            "nocuda", new Script("nocuda", "cannot load CUDA", ops -> {
                throw new UnsatisfiedLinkError("no cudart in java.library.path");
            }));

    private static CliRunner cli(Supplier<DeviceTracer> tracer) {
        return new CliRunner().withLive(new RecordCommand.Live(tracer, WORKLOADS::get, () -> new TreeSet<>(WORKLOADS.keySet())));
    }

    private final CliRunner cli = cli(() -> FAKE.tracer());

    private List<String> files() throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private List<String> replayed(Path input) throws Exception {
        Path out = dir.resolve("replayed-" + input.getFileName() + ".json");
        CliRunner replay = new CliRunner();
        assertEquals(0, replay.run("replay", input.toString(), "-o", out.toString()), replay.stderr());
        List<String> events = TraceJson.sortedEventsWithoutRowLabels(TraceJson.MAPPER.readTree(out.toFile()));
        Files.delete(out);
        return events;
    }

    @Test
    void oneTraceWithItsSummaryDumpAndJournalEachReplayingToIt() throws Exception {
        List<Path> outputs = List.of(dir.resolve("t.json"), dir.resolve("s.json"), dir.resolve("d.fltrbuf"), dir.resolve("j"));
        Path trace = outputs.get(0);
        Path summary = outputs.get(1);
        Path dump = outputs.get(2);
        Path journal = outputs.get(3);
        assertEquals(0, cli.run("record", "--workload", "twice", "-o", trace.toString(), "--summary", summary.toString(),
                "--dump-buffers", dump.toString(), "--journal", journal.toString()), cli.stderr());
        List<String> lines = cli.stdout().lines().toList();
        assertEquals("flagtrace record: tracer " + FAKE.tracer().name() + "; workload twice: two kernels in an op", lines.get(0));
        assertTrue(lines.get(lines.size() - 1).endsWith(" and " + summary + "; buffers in " + dump + "; journal in " + journal),
                lines.get(lines.size() - 1));

        JsonNode live = TraceJson.MAPPER.readTree(trace.toFile());
        List<String> drawn = new ArrayList<>();
        for (JsonNode e : live.get("traceEvents")) {
            if ("X".equals(e.path("ph").asText())) {
                drawn.add(e.get("cat").asText() + " " + e.get("name").asText());
            }
        }
        assertEquals(2, drawn.stream().filter(d -> d.startsWith("kernel ")).count(), drawn.toString());
        assertTrue(drawn.contains("cpu_op work"), drawn.toString());
        JsonNode ops = TraceJson.MAPPER.readTree(summary.toFile());
        assertTrue(ops.toString().contains("\"work\""), "the op in the summary: " + ops);

        List<String> events = TraceJson.sortedEventsWithoutRowLabels(live);
        assertEquals(events, replayed(dump), "the dump replays to the trace");
        assertEquals(events, replayed(journal), "the journal replays to the trace");
    }

    /** Exit {@code code}, one line on stderr holding {@code expected}, nothing on stdout, nothing written. */
    private void refused(CliRunner runner, int code, String expected, String... args) throws Exception {
        List<String> line = new ArrayList<>(List.of("record"));
        line.addAll(List.of(args));
        assertEquals(code, runner.run(line.toArray(String[]::new)), runner.stdout() + runner.stderr());
        assertEquals(1, runner.stderr().strip().lines().count(), runner.stderr());
        assertTrue(runner.stderr().contains(expected), "'" + expected + "' in: " + runner.stderr());
        assertEquals(List.of(), files(), "nothing written");
    }

    @Test
    void refusalsAreOneLineAndLeaveNothing() throws Exception {
        String trace = dir.resolve("t.json").toString();
        refused(cli, ExitCodes.USAGE, "no workload 'parity'; built in: broken, nocuda, twice", "--workload", "parity", "-o", trace);
        refused(cli, ExitCodes.USAGE, "--summary " + dir.resolve("d.ops.jsonl") + " is where a replay of " + dir.resolve("d.fltrbuf")
                + " reads its ", "--workload", "twice", "-o", trace, "--dump-buffers", dir.resolve("d.fltrbuf").toString(),
                "--summary", dir.resolve("d.ops.jsonl").toString());
        refused(cli, ExitCodes.USAGE, "--with-stack must be 1 to 128, was 129", "--workload", "twice", "-o", trace, "--with-stack", "129");
        refused(cli(() -> new UnavailableTracer("no libcupti here")), ExitCodes.FAILED, "record runs its workload on a GPU and no"
                + " device tracer is available here (no libcupti here); without a GPU, '" + Launcher.name() + " demo' or '"
                + Launcher.name() + " replay CAPTURE' shows the same trace from a capture", "--workload", "twice", "-o", trace);
    }

    @Test
    void aWorkloadThatFailsLeavesNoTrace() throws Exception {
        String trace = dir.resolve("t.json").toString();
        refused(cli, ExitCodes.FAILED, "workload nocuda needs an NVIDIA GPU with CUDA 13 (cudart, cuBLAS, NVRTC) and could not load"
                + " them: ", "--workload", "nocuda", "-o", trace, "--dump-buffers", dir.resolve("d.fltrbuf").toString());
        refused(cli, ExitCodes.FAILED, "the workload broke", "--workload", "broken", "-o", trace, "--summary",
                dir.resolve("s.json").toString(), "--dump-buffers", dir.resolve("d.fltrbuf").toString());
        assertEquals(0, cli.run("record", "--workload", "twice", "-o", trace), "the tracer records again: " + cli.stderr());
        assertEquals(Set.of("t.json"), Set.copyOf(files()));
    }
}
