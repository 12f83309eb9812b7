package org.flagos.trace.session;

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
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.ingest.CaptureSidecars;
import org.flagos.trace.testing.FakeMcpti;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ScheduleOptions#withBufferDumps()} on a live tracer over the fake MCPTI library (as
 * {@link ScheduledSessionTest}): each cycle's dump and sidecars take its trace's base name, replay to
 * that trace event for event (the warmup's kernels, in the dump, fall outside the window as live), and
 * go where the trace goes: deleted with it when the handler keeps nothing.
 */
class ScheduledBufferDumpsTest {
    @RegisterExtension
    static final FakeMcpti FAKE = new FakeMcpti();

    @TempDir
    Path dir;

    private static void run(ScheduledSession session, int steps) {
        for (int i = 0; i < steps; i++) {
            try (OpScope op = session.op("work")) {
                FAKE.tracer().invoke("fakeLaunchKernel", 0);
                try (OpScope inner = session.op("inner")) {
                    FAKE.tracer().invoke("fakeLaunchKernel", 0);
                }
            }
            session.step();
        }
    }

    /** The file names in {@code directory}, grouped by base name (the part before the first dot after the epoch). */
    private static TreeMap<String, Set<String>> byBase(Path directory) throws Exception {
        TreeMap<String, Set<String>> out = new TreeMap<>();
        try (Stream<Path> files = Files.list(directory)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                String name = p.getFileName().toString();
                assertFalse(name.startsWith(".") || name.endsWith(".partial"), "no provisional or partial file is left: " + name);
                String base = name.replaceFirst("^(.*?\\.\\d+)\\..*$", "$1");
                out.computeIfAbsent(base, b -> new TreeSet<>()).add(name.substring(base.length()));
            }
        }
        return out;
    }

    @Test
    void eachCycleDumpReplaysToItsTraceAndNothingElseIsLeft() throws Exception {
        StepSchedule schedule = StepSchedule.builder().waitSteps(1).warmup(1).active(2).repeat(2).build();
        List<CycleTrace> seen = new ArrayList<>();
        TraceReadyHandler tensorboard = TraceReadyHandler.tensorboard(dir);
        try (ScheduledSession session = Profiler.start(FAKE.tracer(), ScheduleOptions.in(dir, schedule).withBufferDumps()
                .onTraceReady(trace -> {
                    tensorboard.onTraceReady(trace);
                    seen.add(trace);
                }))) {
            run(session, 10);
            assertEquals(2, session.cycles());
        }
        TreeMap<String, Set<String>> cycles = byBase(dir);
        assertEquals(2, cycles.size(), cycles.toString());
        Set<String> optional = new TreeSet<>();
        for (CaptureSidecars sidecar : CaptureSidecars.values()) {
            for (Path place : sidecar.places(Path.of("x.fltrbuf"))) {
                optional.add(place.getFileName().toString().substring(1));
            }
        }
        for (var cycle : cycles.entrySet()) {
            Set<String> files = cycle.getValue();
            for (String must : List.of(".pt.trace.json", ".fltrbuf", ".ops.jsonl", ".names.tsv", ".devices.json", ".process.json")) {
                assertTrue(files.contains(must), cycle.getKey() + " has its " + must + ": " + files);
            }
            Set<String> others = new TreeSet<>(files);
            others.removeAll(optional);
            others.removeAll(Set.of(".pt.trace.json", ".fltrbuf"));
            assertEquals(Set.of(), others, "a cycle's files are its trace, its dump and the dump's sidecars");

            Path trace = dir.resolve(cycle.getKey() + ".pt.trace.json");
            Path dump = dir.resolve(cycle.getKey() + ".fltrbuf");
            JsonNode live = TraceJson.MAPPER.readTree(trace.toFile());
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            CaptureReplay.run(CaptureReplay.request(dump, CaptureSidecars.OPS.besides(dump), null, List.of(), Map.of()), out);
            JsonNode replayed = TraceJson.MAPPER.readTree(out.toByteArray());
            List<String> events = TraceJson.sortedEventsWithoutRowLabels(live);
            assertEquals(events, TraceJson.sortedEventsWithoutRowLabels(replayed), cycle.getKey() + " replays event for event");
            assertEquals(4, events.stream().filter(e -> e.contains("\"cat\":\"kernel\"")).count(),
                    "two steps' kernels, none of the warmup's: " + cycle.getKey());
            assertEquals(live.get("deviceProperties"), replayed.get("deviceProperties"));
        }
        for (CycleTrace trace : seen) {
            assertEquals(Set.copyOf(trace.files()), Set.copyOf(cycles.get(trace.path().getFileName().toString()
                    .replace(".pt.trace.json", "")).stream().map(s -> trace.path().resolveSibling(
                    trace.path().getFileName().toString().replace(".pt.trace.json", "") + s)).toList()),
                    "files() names what the cycle wrote");
            assertEquals(trace.path().resolveSibling(trace.path().getFileName().toString().replace(".pt.trace.json", ".fltrbuf")),
                    trace.dump());
        }
    }

    @Test
    void aHandlerThatKeepsNothingOrFailsLeavesNoFile() throws Exception {
        StepSchedule schedule = StepSchedule.builder().warmup(1).active(1).repeat(2).build();
        PrintStream saved = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        ScheduledSession session = Profiler.start(FAKE.tracer(), ScheduleOptions.in(dir, schedule).withBufferDumps()
                .onTraceReady(trace -> {
                    if (trace.cycle() == 1) {
                        throw new IllegalStateException("no room");
                    }
                }));
        try {
            run(session, 5);
        } finally {
            session.close();
            System.setErr(saved);
        }
        assertEquals(1, session.failures().size(), session.failures().toString());
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(List.of(), left.toList(), "neither trace nor dump nor sidecar is left");
        }
    }

    @Test
    void aMoveToAnyNameTakesTheDumpToItsBaseNameAndReplacesAnotherCapturesSidecars() throws Exception {
        StepSchedule schedule = StepSchedule.builder().active(1).repeat(1).build();
        Path kept = dir.resolve("kept");
        Files.createDirectories(kept);
        Files.writeString(kept.resolve("step0.clock.json"), "{}"); // another capture's: this cycle's dump has no clock
        try (ScheduledSession session = Profiler.start(FAKE.tracer(), ScheduleOptions.in(dir, schedule).gzipped().withBufferDumps()
                .onTraceReady(trace -> trace.moveTo(kept.resolve("step" + trace.firstStep() + trace.suffix()))))) {
            run(session, 2);
        }
        TreeSet<String> names = new TreeSet<>();
        try (Stream<Path> files = Files.list(kept)) {
            files.forEach(p -> names.add(p.getFileName().toString()));
        }
        assertTrue(names.containsAll(List.of("step0.pt.trace.json.gz", "step0.fltrbuf", "step0.ops.jsonl", "step0.names.tsv")), names.toString());
        assertTrue(names.stream().allMatch(n -> n.startsWith("step0.")), names.toString());
        assertFalse(names.contains("step0.clock.json"), "a sidecar the cycle did not write is not left beside its dump");
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(List.of(kept), left.toList());
        }
    }
}
