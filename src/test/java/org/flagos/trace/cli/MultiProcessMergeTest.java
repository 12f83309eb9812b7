package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.flagos.trace.testing.Browser;
import org.flagos.trace.testing.CatapultViewer;
import org.flagos.trace.testing.FakeVendorLibrary;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Four ranks, each a JVM of its own capturing through the fake MCPTI library with its clock moved
 * by a different offset (hundreds of milliseconds, either way), merged by {@code flagtrace merge}: every event of
 * every rank lands on rank 0's clock, by exactly the offset the merge states, and the moment each
 * rank opened its {@code mark} op (read on the host's real-time clock) agrees across ranks within
 * the stated bound; ids stay unique, every arrow paired, and the merged trace opens in the viewer
 * and in Perfetto's trace processor without a warning.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MultiProcessMergeTest {
    private static final int RANKS = 4;
    /**
     * Each rank's vendor clock is this far off the host's real-time clock: hundreds of times the
     * slack below, yet within the second the MCPTI decoder allows between the vendor's clock and the
     * host's (VendorClock.SLACK_NS: records further off are dropped as implausible).
     */
    private static final long[] OFFSETS = {0, 250_000_000L, -600_000_000L, 500_000_000L};
    /**
     * Slack beyond the stated bound for comparing with the real-time clock: the host's real-time and
     * monotonic clocks may be slewed apart (NTP) between the ranks' starts, and each session's host
     * clock is calibrated to the vendor's within its own bound (microseconds).
     */
    private static final long SLACK_NS = 1_000_000;

    @TempDir
    static Path dir;

    private final Map<Integer, JsonNode> inputs = new HashMap<>();
    private final Map<Integer, long[]> marks = new HashMap<>();

    @BeforeAll
    void fourRanks() throws Exception {
        Path library = FakeVendorLibrary.build("fake_mcpti");
        List<Process> children = new ArrayList<>();
        for (int r = 0; r < RANKS; r++) {
            children.add(MergeChild.start(dir, library, r, RANKS, OFFSETS[r]));
        }
        for (int r = 0; r < RANKS; r++) {
            Process child = children.get(r);
            assertTrue(child.waitFor(120, TimeUnit.SECONDS), "rank " + r + " finished");
            assertEquals(0, child.exitValue(), "rank " + r + ": " + Files.readString(dir.resolve("rank" + r + ".log")));
            inputs.put(r, TraceJson.MAPPER.readTree(dir.resolve("rank" + r + ".json").toFile()));
            String[] mark = Files.readString(dir.resolve("rank" + r + ".mark")).strip().split(" ");
            marks.put(r, new long[] {Long.parseLong(mark[0]), Long.parseLong(mark[1])});
        }
    }

    private JsonNode merge(String... options) throws Exception {
        Path merged = dir.resolve("merged" + String.join("", options).replace("-", "") + ".json");
        List<String> args = new ArrayList<>(List.of("merge"));
        for (int r = RANKS - 1; r >= 0; r--) { // in no particular order: the ranks order them
            args.add(dir.resolve("rank" + r + ".json").toString());
        }
        args.addAll(List.of("-o", merged.toString()));
        args.addAll(List.of(options));
        CliRunner cli = new CliRunner();
        assertEquals(0, cli.run(args.toArray(String[]::new)), cli.stderr());
        assertTrue(cli.stdout().contains("wrote " + merged), cli.stdout());
        return TraceJson.MAPPER.readTree(merged.toFile());
    }

    @Test
    void everySessionSaysWhoAndWhen() {
        for (int r = 0; r < RANKS; r++) {
            JsonNode trace = inputs.get(r);
            assertEquals(r, trace.get("distributedInfo").get("rank").asInt());
            assertEquals(RANKS, trace.get("distributedInfo").get("world_size").asInt());
            JsonNode process = trace.get("flagtrace_process");
            assertEquals(r, process.get("local_rank").asInt());
            assertTrue(process.get("pid").asLong() > 0);
            JsonNode anchors = trace.get("flagtrace").get("clock_anchors");
            assertEquals(2, anchors.size(), "start and stop anchors");
            for (JsonNode a : anchors) {
                long realToTrace = a.get("trace_ns").asLong() - a.get("realtime_ns").asLong();
                assertTrue(Math.abs(realToTrace - OFFSETS[r]) < SLACK_NS, "rank " + r + ": the anchor sees the vendor clock's offset, "
                        + realToTrace + " ns against " + OFFSETS[r]);
            }
        }
    }

    @Test
    void aDumpsReplayCarriesTheRankAndAnchors() throws Exception {
        Path replayed = dir.resolve("rank2-replayed.json");
        CliRunner cli = new CliRunner();
        assertEquals(0, cli.run("replay", dir.resolve("rank2.fltrbuf").toString(), "-o", replayed.toString()), cli.stderr());
        JsonNode trace = TraceJson.MAPPER.readTree(replayed.toFile());
        assertEquals(inputs.get(2).get("distributedInfo"), trace.get("distributedInfo"));
        assertEquals(inputs.get(2).get("flagtrace_process"), trace.get("flagtrace_process"));
        assertEquals(inputs.get(2).get("flagtrace").get("clock_anchors"), trace.get("flagtrace").get("clock_anchors"));
    }

    @Test
    void aJournalsReplayCarriesTheRankAndBothAnchors() throws Exception {
        Path replayed = dir.resolve("rank3-journal.json");
        CliRunner cli = new CliRunner();
        assertEquals(0, cli.run("replay", dir.resolve("rank3.journal").toString(), "-o", replayed.toString()), cli.stderr());
        JsonNode trace = TraceJson.MAPPER.readTree(replayed.toFile());
        assertEquals(inputs.get(3).get("distributedInfo"), trace.get("distributedInfo"));
        assertEquals(inputs.get(3).get("flagtrace_process"), trace.get("flagtrace_process"));
        // The start anchor travels in the session's metadata, the stop anchor in its own document.
        assertEquals(inputs.get(3).get("flagtrace").get("clock_anchors"), trace.get("flagtrace").get("clock_anchors"));
    }

    @Test
    void capturesAndJournalsMergeAsTheirTracesDo() throws Exception {
        Path merged = dir.resolve("from-dumps.json");
        CliRunner cli = new CliRunner();
        assertEquals(0, cli.run("merge", dir.resolve("rank0.fltrbuf").toString(), dir.resolve("rank1.journal").toString(),
                dir.resolve("rank2.json").toString(), dir.resolve("rank3.fltrbuf").toString(), "-o", merged.toString()), cli.stderr());
        JsonNode block = TraceJson.MAPPER.readTree(merged.toFile()).get("flagtrace_merge");
        assertEquals("monotonic", block.get("clock").asText());
        assertEquals(dir.resolve("rank1.journal").toString(), block.get("inputs").get(1).get("trace").asText(), "named by what was given");
        for (JsonNode input : block.get("inputs")) {
            int rank = input.get("rank").asInt();
            assertTrue(Math.abs(input.get("offset_ns").asLong() - (OFFSETS[0] - OFFSETS[rank])) <= SLACK_NS, input.toString());
        }
        try (var files = Files.list(dir)) {
            assertTrue(files.noneMatch(p -> p.getFileName().toString().startsWith(".flagtrace-merge-")), "replays deleted");
        }
    }

    @Test
    void oneHostsMonotonicClockPutsEveryEventWhereItWas() throws Exception {
        JsonNode merged = merge();
        JsonNode block = merged.get("flagtrace_merge");
        assertEquals("monotonic", block.get("clock").asText());
        assertEquals(0, block.get("bound_ns").asLong(), "one host's monotonic clock: exact");
        checkTimeline(merged);
    }

    @Test
    void realTimeClockAlignsWithinItsBound() throws Exception {
        JsonNode merged = merge("--clock", "realtime");
        JsonNode block = merged.get("flagtrace_merge");
        assertEquals("realtime", block.get("clock").asText());
        assertTrue(block.get("bound_ns").asLong() > 0 && block.get("bound_ns").asLong() < SLACK_NS, block.toString());
        checkTimeline(merged);
    }

    /**
     * Each rank's events are its own, moved by one shift, which is its vendor clock's offset from
     * rank 0's; the marks line up with the real-time clock; ids unique and arrows paired.
     */
    private void checkTimeline(JsonNode merged) {
        JsonNode block = merged.get("flagtrace_merge");
        long base = merged.get("baseTimeNanoseconds").asLong();
        Map<Integer, Long> markNs = new HashMap<>();
        for (JsonNode input : block.get("inputs")) {
            int rank = input.get("rank").asInt();
            long offset = input.get("offset_ns").asLong();
            long bound = input.get("bound_ns").asLong();
            assertTrue(Math.abs(offset - (OFFSETS[0] - OFFSETS[rank])) <= bound + SLACK_NS,
                    "rank " + rank + ": offset " + offset + " against the vendor clocks' " + (OFFSETS[0] - OFFSETS[rank]));
            long slot = input.get("slot").asLong();
            JsonNode source = inputs.get(rank);
            List<Long> sourceTimes = times(source, e -> true);
            List<Long> mergedTimes = times(merged, e -> e.path("pid").asLong() / 1000 == slot + 1 && !isProcessLabel(e));
            assertEquals(sourceTimes.size() - labels(source), mergedTimes.size(), "rank " + rank + ": every event, in its own processes");
            long shift = source.get("baseTimeNanoseconds").asLong() + offset - base;
            List<Long> expected = new ArrayList<>();
            for (JsonNode e : source.get("traceEvents")) {
                if (!isProcessLabel(e) && e.has("ts")) {
                    expected.add(TimesNs.of(e.get("ts")) + shift);
                }
            }
            assertEquals(expected, mergedTimes, "rank " + rank + ": every event moved by the one shift");
            for (JsonNode e : merged.get("traceEvents")) {
                if ("mark".equals(e.path("name").asText()) && e.path("pid").asLong() / 1000 == slot + 1) {
                    markNs.put(rank, base + TimesNs.of(e.get("ts")));
                }
            }
            assertNotNull(markNs.get(rank), "rank " + rank + "'s mark op");
        }
        long bound = block.get("bound_ns").asLong();
        for (int r = 1; r < RANKS; r++) {
            long seen = markNs.get(r) - markNs.get(0);
            long low = marks.get(r)[0] - marks.get(0)[1];
            long high = marks.get(r)[1] - marks.get(0)[0];
            assertTrue(seen >= low - bound - SLACK_NS && seen <= high + bound + SLACK_NS, "rank " + r + "'s mark is " + seen
                    + " ns after rank 0's on the merged clock; the real-time clock says between " + low + " and " + high);
        }
        Map<String, Integer> flowStarts = new HashMap<>();
        Set<Long> correlations = new HashSet<>();
        int deviceEvents = 0;
        for (JsonNode e : merged.get("traceEvents")) {
            String ph = e.path("ph").asText();
            if (ph.equals("s") || ph.equals("f")) {
                flowStarts.merge(ph + e.get("id").asLong(), 1, Integer::sum);
            }
            if (CatapultViewer.DEVICE.contains(e.path("cat").asText())) {
                deviceEvents++;
                assertTrue(correlations.add(e.get("args").get("correlation").asLong()), "correlations unique across ranks: " + e);
            }
        }
        assertTrue(deviceEvents >= RANKS * 13, "device events of every rank: " + deviceEvents);
        for (long c : correlations) {
            assertEquals(1, flowStarts.getOrDefault("s" + c, 0), "one arrow start for " + c);
            assertEquals(1, flowStarts.getOrDefault("f" + c, 0), "one arrow end for " + c);
        }
        Set<String> names = new HashSet<>();
        for (JsonNode e : merged.get("traceEvents")) {
            if (isProcessLabel(e) && e.get("name").asText().equals("process_name")) {
                names.add(e.get("args").get("name").asText());
            }
        }
        for (int rank = 0; rank < RANKS; rank++) {
            int r = rank;
            String pid = inputs.get(r).get("flagtrace_process").get("pid").asText();
            String host = inputs.get(r).get("flagtrace_process").get("host").asText();
            assertTrue(names.stream().anyMatch(n -> n.startsWith("rank " + r + " · " + host + " · pid " + pid)),
                    "rank " + r + "'s host process is labelled with rank, host and pid: " + names);
        }
    }

    @Test
    void opensInTheViewerWithoutAWarning() throws Exception {
        Browser.requireTools();
        JsonNode merged = merge();
        Path file = dir.resolve("merged.json");
        JsonNode imported = CatapultViewer.importAll(List.of(file)).values().iterator().next();
        CatapultViewer.assertOpensCleanly(merged, imported, "merged 4 ranks");
    }

    @Test
    void loadsInPerfettosTraceProcessorWithoutAProblem() throws Exception {
        Browser.requireTraceProcessor();
        merge();
        Path out = Files.createDirectories(dir.resolve("perfetto"));
        JsonNode loaded = Browser.traceProcessor(List.of(out.toString(), dir.resolve("merged.json").toString()));
        for (JsonNode trace : loaded) {
            assertEquals("[]", trace.get("problems").toString(), "trace processor errors");
            assertTrue(trace.get("flows").asLong() >= RANKS * 13, "arrows of every rank: " + trace.get("flows"));
        }
    }

    private static boolean isProcessLabel(JsonNode e) {
        String name = e.path("name").asText();
        return "M".equals(e.path("ph").asText()) && (name.equals("process_name") || name.equals("process_sort_index"));
    }

    private static int labels(JsonNode trace) {
        int n = 0;
        for (JsonNode e : trace.get("traceEvents")) {
            if (isProcessLabel(e) || !e.has("ts")) {
                n++;
            }
        }
        return n;
    }

    private static List<Long> times(JsonNode trace, java.util.function.Predicate<JsonNode> which) {
        List<Long> out = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if (which.test(e) && e.has("ts")) {
                out.add(TimesNs.of(e.get("ts")));
            }
        }
        return out;
    }

    /** A {@code ts} (µs, up to three decimals) in ns, exactly. */
    static final class TimesNs {
        static long of(JsonNode ts) {
            return new java.math.BigDecimal(ts.asText()).movePointRight(3).longValueExact();
        }
    }
}
