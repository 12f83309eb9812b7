package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.InputStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.flagos.trace.testing.Browser;
import org.flagos.trace.testing.CatapultViewer;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 17's two-process run on the H200 ({@code benchmarks/run-device-ranks.sh}, captures/h200-ranks/):
 * two JVMs, {@code RANK=0} and {@code RANK=1}, each running {@code flagtrace record --workload exchange
 * --dump-buffers} on the machine's one GPU, exchanging through CUDA IPC for 8 steps (rank 1 spins five
 * times as long in step 5), merged there by {@code flagtrace merge}. The dumps replay and merge here to
 * the device's merged trace event for event; the committed {@code summary --ranks} tables equal a
 * recount from the merged trace's events; rank 1 is the straggler of step 5; both ranks' events lie on
 * one clock, where every meeting of the two processes lines up; and the merge opens cleanly in the
 * Catapult viewer and Perfetto's trace processor.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LiveRanksCaptureTest {
    private static final String DIR = "h200-ranks";
    private static final String SPIN = "spin(long long, float*)";
    private static final String FILL = "fill(float*, float, int)";
    private static final String ALLREDUCE = "allreduce_sum_peer(float*, float const*, float const*, int)";
    private static final int STEPS = 8;
    private static final int STRETCHED = 5;

    @TempDir
    Path dir;

    private JsonNode device;
    private JsonNode tables;
    /** Per slot, per name, the [start, end] of its complete events in ns on the merged clock, in start order. */
    private final Map<Integer, Map<String, List<long[]>>> spans = new HashMap<>();

    @BeforeAll
    void load() throws Exception {
        Path fixture = Captures.dir().resolve(DIR);
        try (InputStream in = Captures.open(fixture.resolve("h200-ranks.merged.json.gz"))) {
            device = TraceJson.MAPPER.readTree(in);
        }
        tables = TraceJson.MAPPER.readTree(fixture.resolve("h200-ranks.ranks.json").toFile());
        for (JsonNode e : device.get("traceEvents")) {
            if ("X".equals(e.path("ph").asText())) {
                long start = nanos(e.get("ts"));
                spans.computeIfAbsent(slot(e), s -> new HashMap<>())
                        .computeIfAbsent(e.get("cat").asText() + "/" + e.get("name").asText(), n -> new ArrayList<>())
                        .add(new long[] {start, start + nanos(e.get("dur"))});
            }
        }
        spans.values().forEach(byName -> byName.values().forEach(l -> l.sort((a, b) -> Long.compare(a[0], b[0]))));
    }

    private static int slot(JsonNode e) {
        return (int) (e.get("pid").asLong() / 1000 - 1);
    }

    /** A {@code ts} or {@code dur} (µs, up to three decimals) in ns, exactly. */
    private static long nanos(JsonNode micros) {
        return new BigDecimal(micros.asText()).movePointRight(3).longValueExact();
    }

    private List<long[]> spans(int slot, String cat, String name) {
        return spans.get(slot).getOrDefault(cat + "/" + name, List.of());
    }

    private Path copyOfTheCaptures() throws Exception {
        Path fixture = Captures.dir().resolve(DIR);
        try (var files = Files.list(fixture)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                if (f.getFileName().toString().startsWith("rank")) {
                    Files.copy(f, dir.resolve(f.getFileName()));
                }
            }
        }
        return dir;
    }

    /** Events sorted as text, a process label's last part (the program's name: java PID live, flagtrace replayed) cut. */
    private static List<String> events(JsonNode trace) {
        List<String> out = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("M".equals(e.path("ph").asText()) && "process_name".equals(e.path("name").asText())) {
                ObjectNode copy = e.deepCopy();
                String label = e.get("args").get("name").asText();
                ((ObjectNode) copy.get("args")).put("name", label.substring(0, label.lastIndexOf(" · ")));
                out.add(copy.toString());
            } else {
                out.add(e.toString());
            }
        }
        Collections.sort(out);
        return out;
    }

    @Test
    void theDumpsReplayAndMergeHereToTheDevicesMergeEventForEvent() throws Exception {
        Path captures = copyOfTheCaptures();
        Path merged = dir.resolve("offline.json");
        CliRunner cli = new CliRunner();
        assertEquals(0, cli.run("merge", captures.resolve("rank0.fltrbuf").toString(), captures.resolve("rank1.fltrbuf").toString(),
                "-o", merged.toString()), cli.stderr());
        JsonNode offline = TraceJson.MAPPER.readTree(merged.toFile());
        assertEquals(events(device), events(offline));
        ObjectNode deviceBlock = device.get("flagtrace_merge").deepCopy();
        ObjectNode offlineBlock = offline.get("flagtrace_merge").deepCopy();
        for (ObjectNode block : List.of(deviceBlock, offlineBlock)) {
            block.get("inputs").forEach(input -> ((ObjectNode) input).remove("trace")); // the live trace's path vs the dump's
        }
        assertEquals(deviceBlock, offlineBlock);
        for (String field : List.of("baseTimeNanoseconds", "traceName", "schemaVersion")) {
            assertEquals(device.get(field), offline.get(field), field);
        }
        // merge keeps each rank's devices since issue 30 (the device's merged trace predates it and has none):
        // one H200 per rank, renumbered to the rank's pid
        assertEquals(2, offline.get("deviceProperties").size(), offline.get("deviceProperties").toString());
        offline.get("deviceProperties").forEach(d -> assertEquals("NVIDIA H200", d.get("name").asText()));
    }

    /** The SQL analyses (docs/analysis.md) over this real merge's events table give what the Java pass gives. */
    @Test
    void theSqlAnalysesOfTheEventsTableEqualSummaryRanks() throws Exception {
        Path merged = Captures.dir().resolve(DIR).resolve("h200-ranks.merged.json.gz");
        Path events = dir.resolve("events.parquet");
        CliRunner cli = new CliRunner();
        assertEquals(0, cli.run("tables", merged.toString(), "-o", events.toString()), cli.stderr());
        org.flagos.trace.report.RankTimes java = org.flagos.trace.report.RankTimes.read(merged);
        try (org.flagos.trace.sql.DuckDbAnalyses duck = org.flagos.trace.sql.DuckDbAnalyses.open(events)) {
            org.flagos.trace.sql.ResultTable steps = duck.run("step_stragglers");
            List<org.flagos.trace.report.RankTimesTable.StepRow> want = org.flagos.trace.report.RankTimesTable.steps(java);
            assertEquals(8, want.size());
            assertEquals(want.size(), steps.rows().size(), steps.render());
            for (int i = 0; i < want.size(); i++) {
                org.flagos.trace.report.RankTimesTable.StepRow w = want.get(i);
                List<Object> g = steps.rows().get(i);
                assertEquals(List.of(w.step(), (long) w.ranks(), w.medianNs(), w.fastestNs(), w.slowestNs(), w.slowest(), w.overMedianNs()),
                        List.of("ProfilerStep#" + g.get(0), g.get(1), g.get(2), g.get(3), g.get(4), "rank " + g.get(5), g.get(6)));
            }
            org.flagos.trace.sql.ResultTable device = duck.run("rank_device");
            assertEquals(2, device.rows().size(), device.render());
            for (List<Object> g : device.rows()) {
                Map<String, Object> row = new HashMap<>();
                for (int c = 0; c < g.size(); c++) {
                    row.put(device.columns().get(c), g.get(c));
                }
                org.flagos.trace.report.RankTimes.Rank w = java.ranks().stream().filter(r -> r.rank() == (Long) row.get("rank"))
                        .findFirst().orElseThrow();
                assertEquals(List.of(w.deviceSpanNs(), w.computationNs(), w.communicationNs(), w.memoryNs(), w.idleNs(), w.overlapNs(),
                        w.deviceEvents()), List.of(row.get("device_span_ns"), row.get("computation_ns"), row.get("communication_ns"),
                        row.get("memory_ns"), row.get("idle_ns"), row.get("overlap_ns"), row.get("device_events")), w.label());
                // the workload's own exchange kernel is no collective library's (docs/analysis.md, "Communication kernels")
                assertEquals(0, w.communicationNs(), "allreduce_sum_peer is computation: " + w.label());
                assertTrue(w.computationNs() > 0, w.label());
            }
        }
    }

    @Test
    void theCommittedTablesAreWhatSummaryRanksWritesFromTheMergedTrace() throws Exception {
        Path json = dir.resolve("ranks.json");
        CliRunner cli = new CliRunner();
        assertEquals(0, cli.run("summary", "--ranks", Captures.dir().resolve(DIR).resolve("h200-ranks.merged.json.gz").toString(),
                "--json", json.toString()), cli.stderr());
        assertEquals(tables, TraceJson.MAPPER.readTree(json.toFile()));
    }

    @Test
    void theStepTableEqualsARecountFromTheEvents() {
        Map<String, Long> rankOfSlot = rankOfSlot();
        JsonNode steps = tables.get("steps");
        assertEquals(STEPS, steps.size());
        for (int n = 0; n < STEPS; n++) {
            String step = "ProfilerStep#" + n;
            TreeMap<Long, Long> timeByRank = new TreeMap<>();
            for (int slot = 0; slot < 2; slot++) {
                List<long[]> op = spans(slot, "cpu_op", step);
                assertEquals(1, op.size(), step + " once in slot " + slot);
                timeByRank.put(rankOfSlot.get(String.valueOf(slot)), op.get(0)[1] - op.get(0)[0]);
                assertMicros(op.get(0)[1] - op.get(0)[0], tables.get("ranks").get(slot).get("step_us").get(step),
                        step + " of slot " + slot);
            }
            long slowest = Collections.max(timeByRank.values());
            long fastest = Collections.min(timeByRank.values());
            long slowestRank = timeByRank.entrySet().stream().filter(en -> en.getValue() == slowest).findFirst().orElseThrow().getKey();
            BigDecimal median = micros(fastest).add(micros(slowest)).divide(BigDecimal.valueOf(2), 3, RoundingMode.HALF_EVEN);
            JsonNode row = steps.get(n);
            assertEquals(step, row.get("step").asText());
            assertEquals(2, row.get("ranks").asInt());
            assertMicros(slowest, row.get("slowest_us"), step);
            assertMicros(fastest, row.get("fastest_us"), step);
            assertEquals("rank " + slowestRank, row.get("slowest_rank").asText(), step);
            assertTrue(median.subtract(row.get("median_us").decimalValue()).abs().compareTo(new BigDecimal("0.001")) <= 0,
                    step + ": median " + median + " against " + row.get("median_us"));
            assertTrue(micros(slowest).subtract(median).subtract(row.get("over_median_us").decimalValue()).abs()
                    .compareTo(new BigDecimal("0.001")) <= 0, step + " over the median");
        }
    }

    @Test
    void theDeviceSplitEqualsARecountFromTheEvents() {
        for (int slot = 0; slot < 2; slot++) {
            List<long[]> comm = new ArrayList<>();
            List<long[]> compute = new ArrayList<>();
            List<long[]> memory = new ArrayList<>();
            List<long[]> all = new ArrayList<>();
            long first = Long.MAX_VALUE;
            long last = Long.MIN_VALUE;
            int deviceEvents = 0;
            for (Map.Entry<String, List<long[]>> byName : spans.get(slot).entrySet()) {
                String cat = byName.getKey().substring(0, byName.getKey().indexOf('/'));
                String name = byName.getKey().substring(cat.length() + 1);
                for (long[] s : byName.getValue()) {
                    first = Math.min(first, s[0]);
                    last = Math.max(last, s[1]);
                }
                if (!CatapultViewer.DEVICE.contains(cat)) {
                    continue;
                }
                deviceEvents += byName.getValue().size();
                all.addAll(byName.getValue());
                // no kernel here is a collective library's (the exchange kernel allreduce_sum_peer is the workload's own,
                // its name starts with no library's prefix): every kernel is computation
                (cat.equals("kernel") ? name.startsWith("nccl") ? comm : compute : memory).addAll(byName.getValue());
            }
            List<long[]> commOrCompute = new ArrayList<>(comm);
            commOrCompute.addAll(compute);
            long span = all.stream().mapToLong(s -> s[1]).max().orElseThrow() - all.stream().mapToLong(s -> s[0]).min().orElseThrow();
            long busy = union(all);
            long both = union(commOrCompute);
            JsonNode rank = tables.get("ranks").get(slot);
            assertMicros(span, rank.get("device_span_us"), "device span of slot " + slot);
            assertMicros(union(comm), rank.get("communication_us"), "communication of slot " + slot);
            assertMicros(both - union(comm), rank.get("computation_us"), "computation of slot " + slot);
            assertMicros(busy - both, rank.get("memory_us"), "memory of slot " + slot);
            assertMicros(span - busy, rank.get("idle_us"), "idle of slot " + slot);
            assertMicros(union(comm) + union(compute) - both, rank.get("overlap_us"), "overlap of slot " + slot);
            assertMicros(union(compute), rank.get("computation_total_us"));
            assertMicros(last - first, rank.get("whole_us"), "first to last event of slot " + slot);
            assertEquals(deviceEvents, rank.get("device_events").asInt());
            assertEquals(STEPS * 4, deviceEvents, "fill, spin, the exchange kernel and the check's copy, each step");
            assertEquals(0, union(comm), "no collective library's kernel");
            assertTrue(spans(slot, "kernel", ALLREDUCE).size() == STEPS, "the exchange kernels are there, as computation");
        }
        assertEquals(0, tables.get("left_out_invalid").asLong());
        assertEquals(0, tables.get("left_out_unplaced").asLong());
    }

    @Test
    void rankOneIsTheStragglerOfTheStretchedStep() {
        assertEquals("rank 1", tables.get("steps").get(STRETCHED).get("slowest_rank").asText());
        int one = slotOfRank(1);
        int zero = slotOfRank(0);
        List<long[]> spins = spans(one, "kernel", SPIN);
        assertEquals(STEPS, spins.size());
        for (int n = 0; n < STEPS; n++) {
            long d = spins.get(n)[1] - spins.get(n)[0];
            long usual = spins.get(n == 0 ? 1 : 0)[1] - spins.get(n == 0 ? 1 : 0)[0];
            assertTrue(n == STRETCHED ? d > 4 * usual : d < 2 * usual, "rank 1's spin in step " + n + ": " + d + " ns");
        }
        // the barrier makes both ranks' steps long; where the time went says who: rank 0 waits for rank 1
        long[] zeroWait = spans(zero, "cpu_op", "exchange::wait_peer").get(2 * STRETCHED);
        long[] oneWait = spans(one, "cpu_op", "exchange::wait_peer").get(2 * STRETCHED);
        long stretch = (spins.get(STRETCHED)[1] - spins.get(STRETCHED)[0]) - (spins.get(0)[1] - spins.get(0)[0]);
        assertTrue(zeroWait[1] - zeroWait[0] > stretch, "rank 0 waited through rank 1's extra spin");
        assertTrue(oneWait[1] - oneWait[0] < (zeroWait[1] - zeroWait[0]) / 10, "rank 1 hardly waited");
        assertTrue(tables.get("ranks").get(one).get("computation_us").asDouble()
                > tables.get("ranks").get(zero).get("computation_us").asDouble() + micros(stretch).doubleValue() * 0.9);
    }

    @Test
    void bothRanksLieOnOneClockWhereEveryMeetingLinesUp() {
        JsonNode block = device.get("flagtrace_merge");
        assertEquals("monotonic", block.get("clock").asText());
        assertEquals(0, block.get("bound_ns").asLong(), "one host's monotonic clock: exact");
        JsonNode inputs = block.get("inputs");
        assertEquals(inputs.get(0).get("host"), inputs.get(1).get("host"));
        assertEquals(inputs.get(0).get("boot_id"), inputs.get(1).get("boot_id"));
        // 16 meetings: each rank leaves each only after the other has come to it
        List<long[]> zero = spans(slotOfRank(0), "cpu_op", "exchange::wait_peer");
        List<long[]> one = spans(slotOfRank(1), "cpu_op", "exchange::wait_peer");
        assertEquals(2 * STEPS, zero.size());
        assertEquals(2 * STEPS, one.size());
        for (int m = 0; m < 2 * STEPS; m++) {
            assertTrue(zero.get(m)[1] >= one.get(m)[0] && one.get(m)[1] >= zero.get(m)[0], "meeting " + m + " lines up");
        }
        // device work of the two processes in the order the meetings force: every exchange kernel after both
        // ranks' computation of its step, every step's computation after both ranks' exchange of the step before
        for (int n = 0; n < STEPS; n++) {
            long computed = Math.max(spans(0, "kernel", SPIN).get(n)[1], spans(1, "kernel", SPIN).get(n)[1]);
            for (int slot = 0; slot < 2; slot++) {
                assertTrue(spans(slot, "kernel", ALLREDUCE).get(n)[0] > computed, "slot " + slot + "'s exchange in step " + n);
                if (n > 0) {
                    long exchanged = Math.max(spans(0, "kernel", ALLREDUCE).get(n - 1)[1], spans(1, "kernel", ALLREDUCE).get(n - 1)[1]);
                    assertTrue(spans(slot, "kernel", FILL).get(n)[0] > exchanged, "slot " + slot + "'s computation in step " + n);
                }
            }
        }
    }

    @Test
    void opensInTheViewerWithoutAWarning() throws Exception {
        Browser.requireTools();
        Path file = dir.resolve("h200-ranks.merged.json");
        TraceJson.MAPPER.writeValue(file.toFile(), device);
        JsonNode imported = CatapultViewer.importAll(List.of(file)).values().iterator().next();
        CatapultViewer.assertOpensCleanly(device, imported, "the H200 two-rank merge");
    }

    @Test
    void loadsInPerfettosTraceProcessorWithoutAProblem() throws Exception {
        Browser.requireTraceProcessor();
        Path file = dir.resolve("h200-ranks.merged.json");
        TraceJson.MAPPER.writeValue(file.toFile(), device);
        Path out = Files.createDirectories(dir.resolve("perfetto"));
        long arrows = 0;
        for (JsonNode e : device.get("traceEvents")) {
            arrows += "s".equals(e.path("ph").asText()) ? 1 : 0;
        }
        assertTrue(arrows >= 2L * STEPS * 4, "an arrow into every kernel and copy of both ranks at least");
        for (JsonNode trace : Browser.traceProcessor(List.of(out.toString(), file.toString()))) {
            assertEquals("[]", trace.get("problems").toString(), "trace processor errors");
            assertEquals(arrows, trace.get("flows").asLong(), "every arrow of both ranks");
        }
    }

    private Map<String, Long> rankOfSlot() {
        Map<String, Long> out = new HashMap<>();
        for (JsonNode input : device.get("flagtrace_merge").get("inputs")) {
            out.put(input.get("slot").asText(), input.get("rank").asLong());
        }
        return out;
    }

    private int slotOfRank(long rank) {
        for (Map.Entry<String, Long> e : rankOfSlot().entrySet()) {
            if (e.getValue() == rank) {
                return Integer.parseInt(e.getKey());
            }
        }
        throw new AssertionError("no slot has rank " + rank);
    }

    private static void assertMicros(long ns, JsonNode written, String what) {
        assertEquals(0, micros(ns).compareTo(written.decimalValue()), what + ": " + written + " µs written, " + ns + " ns counted");
    }

    private static void assertMicros(long ns, JsonNode written) {
        assertMicros(ns, written, "");
    }

    private static BigDecimal micros(long ns) {
        return BigDecimal.valueOf(ns).movePointLeft(3).setScale(3, RoundingMode.UNNECESSARY);
    }

    /** The length of the union of the intervals. */
    private static long union(List<long[]> intervals) {
        List<long[]> sorted = new ArrayList<>(intervals);
        sorted.sort((a, b) -> Long.compare(a[0], b[0]));
        long total = 0;
        long start = Long.MIN_VALUE;
        long end = Long.MIN_VALUE;
        for (long[] s : sorted) {
            if (s[0] > end) {
                total += end - start;
                start = s[0];
                end = s[1];
            } else {
                end = Math.max(end, s[1]);
            }
        }
        return sorted.isEmpty() ? 0 : total + end - start;
    }
}
