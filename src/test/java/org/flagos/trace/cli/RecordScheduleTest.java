package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.flagos.trace.model.HostOpMarker;
import org.flagos.trace.model.Workload;
import org.flagos.trace.testing.FakeMcpti;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code record --schedule} without a GPU: the command takes its tracer from the fake MCPTI library
 * (src/test/native/fake_mcpti.c) and its workloads from this test ({@link RecordCommand.Live}), so
 * the parsing, the refusals and the wiring of the scheduled session (one trace per cycle, each
 * cycle's dump replaying through {@code flagtrace replay} to its trace) run here; the kinds
 * workload's steps themselves run only on the H200 (benchmarks/run-device-record.sh with SCHEDULE).
 */
class RecordScheduleTest {
    @RegisterExtension
    static final FakeMcpti FAKE = new FakeMcpti();

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    /** A workload of this test, known by its name; {@link #launch} is the work each of them does. */
    private abstract static class TestWorkload implements Workload {
        private final String name;
        private final String description;

        TestWorkload(String name, String description) {
            this.name = name;
            this.description = description;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public String description() {
            return description;
        }

        /** One kernel in a {@code work} op. */
        static void launch(HostOpMarker ops) {
            try (HostOpMarker.Scope op = ops.op("work")) {
                FAKE.tracer().invoke("fakeLaunchKernel", 0);
            }
        }
    }

    /** A workload of steps: each step one kernel in a {@code work} op. */
    private static final class Stepper extends TestWorkload {
        Stepper() {
            super("stepper", "one kernel a step");
        }

        @Override
        public void run(HostOpMarker ops) {
            runSteps(ops, () -> { }, 3);
        }

        @Override
        public boolean runsInSteps() {
            return true;
        }

        @Override
        public void runSteps(HostOpMarker ops, Runnable step, int steps) {
            for (int i = 0; i < steps; i++) {
                launch(ops);
                step.run();
            }
        }
    }

    /** A workload of one step that removes the trace directory while its cycle records: the cycle cannot be completed. */
    private static final class Vandal extends TestWorkload {
        private final Path victim;

        Vandal(Path victim) {
            super("vandal", "removes the trace directory");
            this.victim = victim;
        }

        @Override
        public void run(HostOpMarker ops) {
        }

        @Override
        public boolean runsInSteps() {
            return true;
        }

        @Override
        public void runSteps(HostOpMarker ops, Runnable step, int steps) throws Exception {
            launch(ops);
            try (Stream<Path> files = Files.walk(victim)) {
                for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
            step.run();
        }
    }

    /** A workload without steps. */
    private static final class Once extends TestWorkload {
        Once() {
            super("once", "one kernel");
        }

        @Override
        public void run(HostOpMarker ops) {
            launch(ops);
        }
    }

    private int record(String... args) {
        out.reset();
        err.reset();
        List<String> line = new ArrayList<>(List.of("record"));
        line.addAll(List.of(args));
        RecordCommand.Live live = new RecordCommand.Live(() -> FAKE.tracer(),
                name -> name.equals("stepper") ? new Stepper() : name.equals("once") ? new Once()
                        : name.equals("vandal") ? new Vandal(dir.resolve("tb")) : null,
                () -> new TreeSet<>(Set.of("once", "stepper", "vandal")));
        return new FlagtraceCli(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8))
                .withLive(live).run(line.toArray(new String[0]));
    }

    private String stdout() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String stderr() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private List<String> files(Path directory) throws Exception {
        try (Stream<Path> files = Files.list(directory)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void eachCycleItsTraceAndDumpAndEachDumpReplaysToItsTrace() throws Exception {
        Path tb = dir.resolve("tb");
        assertEquals(0, record("--workload", "stepper", "--schedule", "wait=1,warmup=1,active=2,repeat=2", "--steps", "9",
                "--trace-dir", tb.toString(), "--dump-cycles", "--with-stack", "3"), stderr());
        List<String> names = files(tb);
        List<String> traces = names.stream().filter(n -> n.endsWith(".pt.trace.json")).toList();
        assertEquals(2, traces.size(), names.toString());
        assertTrue(stdout().contains("cycle 0 (steps 2-3): wrote ") && stdout().contains("cycle 1 (steps 6-7): wrote "), stdout());
        assertTrue(stdout().contains("flagtrace record: 2 cycles in " + tb), stdout());
        for (String trace : traces) {
            String base = trace.substring(0, trace.length() - ".pt.trace.json".length());
            List<String> own = names.stream().filter(n -> n.startsWith(base + ".")).toList();
            assertEquals(Set.of(".pt.trace.json", ".fltrbuf", ".ops.jsonl", ".names.tsv", ".devices.json", ".process.json"),
                    Set.copyOf(own.stream().map(n -> n.substring(base.length())).toList()), "the cycle's files: " + own);
            assertTrue(stdout().contains(String.join(", ", List.of(trace, base + ".fltrbuf"))), "files printed: " + stdout());
            JsonNode live = TraceJson.MAPPER.readTree(tb.resolve(trace).toFile());
            assertTrue(live.toString().contains("\"Call stack\""), "--with-stack reaches every cycle");
            Path replayed = dir.resolve(base + ".replayed.json");
            CliRunner cli = new CliRunner();
            assertEquals(0, cli.run("replay", tb.resolve(base + ".fltrbuf").toString(), "--ops", tb.resolve(base + ".ops.jsonl").toString(),
                    "-o", replayed.toString()), cli.stderr());
            assertEquals(TraceJson.sortedEventsWithoutRowLabels(live),
                    TraceJson.sortedEventsWithoutRowLabels(TraceJson.MAPPER.readTree(replayed.toFile())), base);
        }
    }

    @Test
    void withoutDumpCyclesOnlyTracesAndPlainModeTakesWithStack() throws Exception {
        Path tb = dir.resolve("tb");
        assertEquals(0, record("--workload", "stepper", "--schedule", "active=1,repeat=2", "--steps", "3",
                "--trace-dir", tb.toString()), stderr());
        List<String> names = files(tb);
        assertEquals(2, names.size(), names.toString());
        assertTrue(names.stream().allMatch(n -> n.endsWith(".pt.trace.json")), names.toString());

        Path plain = dir.resolve("plain.json");
        assertEquals(0, record("--workload", "once", "-o", plain.toString(), "--with-stack", "2"), stderr());
        assertTrue(TraceJson.MAPPER.readTree(plain.toFile()).toString().contains("\"Call stack\""));
    }

    @Test
    void aCycleThatFailsMakesTheRunFail() throws Exception {
        PrintStream saved = System.err;
        System.setErr(new PrintStream(OutputStreamSink.INSTANCE, true, StandardCharsets.UTF_8)); // the session's own warning
        try {
            assertEquals(1, record("--workload", "vandal", "--schedule", "active=1,repeat=1", "--steps", "1",
                    "--trace-dir", dir.resolve("tb").toString(), "--dump-cycles"), stdout());
        } finally {
            System.setErr(saved);
        }
        assertTrue(stdout().contains("flagtrace record: 1 cycle in " + dir.resolve("tb") + ", 1 failed"), stdout());
        assertEquals(1, stderr().strip().lines().count(), stderr());
        assertTrue(stderr().startsWith("flagtrace: error: 1 of 1 cycles failed: cycle 0 (steps 0-0): completing the trace failed"),
                stderr());
    }

    /** Discards what is written. */
    private static final class OutputStreamSink extends java.io.OutputStream {
        static final OutputStreamSink INSTANCE = new OutputStreamSink();

        @Override
        public void write(int b) {
        }
    }

    /** Each refusal: exit 2, one line saying what is wrong, nothing written. */
    private void refused(String expected, String... args) throws Exception {
        assertEquals(2, record(args), String.join(" ", args) + ": " + stdout() + stderr());
        assertEquals(1, stderr().strip().lines().count(), stderr());
        assertTrue(stderr().contains(expected), "'" + expected + "' in: " + stderr());
        assertEquals("", stdout());
        assertEquals(List.of(), files(dir));
    }

    @Test
    void badSchedulesAndMixedModesAreUsageErrors() throws Exception {
        String tb = dir.resolve("tb").toString();
        refused("--schedule: unknown key 'cycles'; torch's keys: wait, warmup, active, repeat, skip_first, skip_first_wait",
                "--workload", "stepper", "--schedule", "active=1,cycles=2", "--steps", "3", "--trace-dir", tb);
        refused("--schedule: wait must be 0 or more, was -1",
                "--workload", "stepper", "--schedule", "wait=-1,active=1", "--steps", "3", "--trace-dir", tb);
        refused("--schedule: active must be at least 1",
                "--workload", "stepper", "--schedule", "wait=1,active=0", "--steps", "3", "--trace-dir", tb);
        refused("--schedule: active must be at least 1",
                "--workload", "stepper", "--schedule", "wait=1", "--steps", "3", "--trace-dir", tb);
        refused("--schedule: warmup must be a whole number, was 'x'",
                "--workload", "stepper", "--schedule", "warmup=x,active=1", "--steps", "3", "--trace-dir", tb);
        refused("--schedule: 'active' is not KEY=N",
                "--workload", "stepper", "--schedule", "active", "--steps", "3", "--trace-dir", tb);
        refused("--schedule: wait given twice",
                "--workload", "stepper", "--schedule", "wait=1,wait=2,active=1", "--steps", "3", "--trace-dir", tb);
        refused("--steps must be at least 1, was 0",
                "--workload", "stepper", "--schedule", "active=1", "--steps", "0", "--trace-dir", tb);
        refused("--schedule needs --steps N",
                "--workload", "stepper", "--schedule", "active=1", "--trace-dir", tb);
        refused("--schedule needs --trace-dir DIR",
                "--workload", "stepper", "--schedule", "active=1", "--steps", "2");
        refused("-o writes one trace's files and --schedule writes one set per cycle",
                "--workload", "stepper", "--schedule", "active=1", "--steps", "2", "--trace-dir", tb, "-o", dir.resolve("t.json").toString());
        refused("--summary writes one trace's files",
                "--workload", "stepper", "--schedule", "active=1", "--steps", "2", "--trace-dir", tb, "--summary", dir.resolve("s.json").toString());
        refused("--dump-buffers writes one trace's files",
                "--workload", "stepper", "--schedule", "active=1", "--steps", "2", "--trace-dir", tb, "--dump-buffers", dir.resolve("d.fltrbuf").toString());
        refused("workload once runs in one piece and has no steps: --schedule runs a workload with steps (stepper, vandal)",
                "--workload", "once", "--schedule", "active=1", "--steps", "2", "--trace-dir", tb);
        refused("name the trace to write (-o TRACE.json) or run in steps",
                "--workload", "stepper");
        refused("--dump-cycles goes with --schedule, and there is none",
                "--workload", "stepper", "-o", dir.resolve("t.json").toString(), "--dump-cycles");
        refused("--trace-dir goes with --schedule",
                "--workload", "stepper", "-o", dir.resolve("t.json").toString(), "--trace-dir", tb);
        refused("--with-stack must be 1 to 128, was 0",
                "--workload", "stepper", "-o", dir.resolve("t.json").toString(), "--with-stack", "0");
        assertFalse(stderr().contains("Exception"), stderr());
    }
}
