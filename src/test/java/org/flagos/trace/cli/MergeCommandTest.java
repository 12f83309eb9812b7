package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.ingest.OpsJsonlReader;
import org.flagos.trace.model.ClockAnchor;
import org.flagos.trace.model.ProcessFacts;
import org.flagos.trace.model.ProcessIdentity;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code flagtrace merge} over replays of the real H200 captures, each given a rank, a host and
 * clock anchors as a live session on another host would record them (the real-time clock then
 * aligns them), and over what it must refuse: not JSON, no anchors, two traces of one rank.
 */
class MergeCommandTest {
    private static final String CAPTURE = "h200-app";
    /** Each rank's trace clock minus the real-time clock: as if each ran on a host of its own. */
    private static final long[] CLOCK_OFFSETS = {0, 1_500_000_000L, -2_000_000_123L, 86_400_000_000_000L};
    private static final long ANCHOR_BOUND_NS = 700;

    @TempDir
    Path dir;

    private final CliRunner cli = new CliRunner();

    /** The bundled capture replayed as rank {@code rank} of 4, its anchor saying its clock's offset. */
    private Path rankTrace(int rank, boolean anchors) throws Exception {
        long real = 1_795_982_694_000_000_000L;
        List<ClockAnchor> pairs = anchors
                ? List.of(new ClockAnchor("start", real, 1_000 + rank, real + CLOCK_OFFSETS[rank], ANCHOR_BOUND_NS))
                : List.of();
        ProcessFacts facts = new ProcessFacts(new ProcessIdentity(rank, 4, 0, 1, "host" + rank, 4000 + rank, "boot" + rank), pairs);
        CaptureReplay.Request request = CaptureReplay.Request.of(CaptureBytes.load(Captures.capture(CAPTURE)), CAPTURE)
                .ops(OpsJsonlReader.read(Captures.ops(CAPTURE)))
                .kernelNames(KernelNameFile.read(Captures.names(CAPTURE))).devices(TestDevices.h200()).ringSize(1 << 12)
                .build().withProcess(facts);
        Path out = dir.resolve("rank" + rank + (anchors ? "" : "-bare") + ".json");
        Files.write(out, TraceJson.replay(request).bytes());
        return out;
    }

    @Test
    void realCapturesOfFourHostsLandOnRankZerosClock() throws Exception {
        List<String> args = new ArrayList<>(List.of("merge"));
        Map<Integer, JsonNode> inputs = new HashMap<>();
        for (int r = 3; r >= 0; r--) {
            Path trace = rankTrace(r, true);
            inputs.put(r, TraceJson.MAPPER.readTree(trace.toFile()));
            args.add(trace.toString());
        }
        Path merged = dir.resolve("merged.json.gz");
        args.addAll(List.of("-o", merged.toString()));
        assertEquals(0, cli.run(args.toArray(String[]::new)), cli.stderr());
        assertTrue(cli.stdout().contains("within " + 2 * ANCHOR_BOUND_NS + " ns"), cli.stdout());
        JsonNode trace = TraceJson.MAPPER.readTree(new java.util.zip.GZIPInputStream(Files.newInputStream(merged)));
        JsonNode block = trace.get("flagtrace_merge");
        assertEquals("realtime", block.get("clock").asText(), "four hosts: the real-time clock");
        assertEquals(2 * ANCHOR_BOUND_NS, block.get("bound_ns").asLong());
        long base = trace.get("baseTimeNanoseconds").asLong();
        int events = 0;
        for (JsonNode input : block.get("inputs")) {
            int rank = input.get("rank").asInt();
            assertEquals(CLOCK_OFFSETS[0] - CLOCK_OFFSETS[rank], input.get("offset_ns").asLong(), "rank " + rank);
            JsonNode source = inputs.get(rank);
            long shift = source.get("baseTimeNanoseconds").asLong() + input.get("offset_ns").asLong() - base;
            List<Long> expected = new ArrayList<>();
            for (JsonNode e : source.get("traceEvents")) {
                if (!label(e)) {
                    expected.add(nanos(e.get("ts")) + shift);
                }
            }
            long slot = input.get("slot").asLong();
            List<Long> actual = new ArrayList<>();
            for (JsonNode e : trace.get("traceEvents")) {
                if (e.get("pid").asLong() / 1000 == slot + 1 && !label(e)) {
                    actual.add(nanos(e.get("ts")));
                }
            }
            assertEquals(expected, actual, "rank " + rank + ": every event, moved onto rank 0's clock");
            events += expected.size();
        }
        assertEquals(events, block.get("inputs").findValues("events").stream().mapToInt(JsonNode::asInt).sum());
        Map<String, Integer> flows = new HashMap<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if (e.get("ph").asText().equals("s") || e.get("ph").asText().equals("f")) {
                flows.merge(e.get("ph").asText() + e.get("id").asLong(), 1, Integer::sum);
            }
        }
        assertTrue(flows.values().stream().allMatch(n -> n == 1), "flow ids unique across ranks");
        assertEquals(flows.keySet().stream().filter(k -> k.startsWith("s")).count(),
                flows.keySet().stream().filter(k -> k.startsWith("f")).count());
        assertTrue(flows.keySet().stream().filter(k -> k.startsWith("s")).allMatch(k -> flows.containsKey("f" + k.substring(1))),
                "every arrow still paired");
    }

    @Test
    void aTraceWithoutAnchorsIsRefusedUnlessAssumedAligned() throws Exception {
        Path zero = rankTrace(0, true);
        Path bare = rankTrace(1, false);
        Path merged = dir.resolve("m.json");
        assertEquals(ExitCodes.FAILED, cli.run("merge", zero.toString(), bare.toString(), "-o", merged.toString()));
        assertTrue(cli.stderr().contains(bare + " has no clock anchors") && cli.stderr().contains("--assume-aligned"), cli.stderr());
        assertEquals(1, cli.stderr().strip().lines().count(), cli.stderr());
        assertFalse(Files.exists(merged), "nothing written");
        assertEquals(0, cli.run("merge", zero.toString(), bare.toString(), "-o", merged.toString(), "--assume-aligned"), cli.stderr());
        assertTrue(cli.stdout().contains("unknown: traces without anchors were taken as aligned"), cli.stdout());
        assertEquals(1, cli.stdout().split("assumed", -1).length - 1, "the assumption said once, on the bare rank's line: "
                + cli.stdout()); // it was "(assumed, no anchors) (assumed)"
        assertTrue(cli.stdout().lines().anyMatch(l -> l.startsWith("rank 1: ") && l.endsWith(" (assumed, no anchors)")), cli.stdout());
        assertTrue(TraceJson.MAPPER.readTree(merged.toFile()).get("flagtrace_merge").get("bound_ns").isNull());
    }

    @Test
    void plainTorchTracesOfTwoRanksAreAlignedByTheirCollectivesAndTheOffsetsPrinted() throws Exception {
        // HTA's sampled ranks 0 and 1 (src/test/resources/hta/README.md): torch traces, no anchors, 10 SendRecv kernels each
        Path zero = Path.of("src/test/resources/hta/sampled_rank-0.json.gz");
        Path one = Path.of("src/test/resources/hta/sampled_rank-1.json.gz");
        Path merged = dir.resolve("m.json");
        assertEquals(0, cli.run("merge", one.toString(), zero.toString(), "-o", merged.toString()), cli.stderr());
        assertTrue(cli.stdout().lines().anyMatch(l -> l.equals("aligned by the ends of shared collectives (no clock anchors): rank 1"
                + " offset -170000 ns, residual 133983000 ns (median 21338500 ns, 10 ends)")), cli.stdout());
        assertTrue(cli.stdout().lines().anyMatch(l -> l.startsWith("rank 1: " + one + ", ") && l.endsWith(" events, offset -170000 ns"
                + " ± 133983000 ns (collectives: 10 ends of 1 kinds matched against rank 0, median residual 21338500 ns)")), cli.stdout());
        JsonNode block = TraceJson.MAPPER.readTree(merged.toFile()).get("flagtrace_merge");
        assertEquals("collectives", block.get("clock").asText());
        assertEquals(133983000, block.get("bound_ns").asLong());
        Files.delete(merged);

        assertEquals(0, cli.run("merge", zero.toString(), one.toString(), "--print-offsets"), cli.stderr());
        List<String> rows = cli.stdout().lines().toList();
        assertEquals(List.of("input\trank\ttrace\tcollective_kernels\tcollectives_offset_ns\tresidual_ns\tmedian_residual_ns\tmatched\tagainst"
                + "\tanchors_offset_ns\tanchors_bound_ns\tanchors_clock",
                "0\t0\t" + zero + "\t10\t0\t0\t0\t-\t-\t-\t-\t-",
                "1\t1\t" + one + "\t10\t-170000\t133983000\t21338500\t10\trank 0\t-\t-\t-"), rows);
        assertFalse(Files.exists(merged), "without -o nothing is written");

        Path anchored = rankTrace(0, true);
        Path other = rankTrace(1, true);
        assertEquals(0, cli.run("merge", anchored.toString(), other.toString(), "--print-offsets"), cli.stderr());
        assertTrue(cli.stdout().contains("\t1\t" + other + "\t0\t-\t-\t-\t0\t-\t-1500000000\t1400\trealtime"),
                "the anchors' offset beside what no collective says: " + cli.stdout());
        assertEquals(ExitCodes.USAGE, cli.run("merge", zero.toString(), one.toString()));
        assertTrue(cli.stderr().contains("-o MERGED.json is needed (or --print-offsets"), cli.stderr());
    }

    @Test
    void notJsonTwoOfOneRankAndABadOutputAreOneLineEach() throws Exception {
        Path zero = rankTrace(0, true);
        Path garbage = Files.writeString(dir.resolve("garbage.json"), "{\"traceEvents\": [{\"ph\": \"X\", oops");
        Path merged = dir.resolve("m.json");
        assertEquals(ExitCodes.FAILED, cli.run("merge", zero.toString(), garbage.toString(), "-o", merged.toString()));
        assertTrue(cli.stderr().startsWith("flagtrace: error: " + garbage + " is not valid JSON"), cli.stderr());
        assertFalse(Files.exists(merged));
        assertEquals(ExitCodes.FAILED, cli.run("merge", zero.toString(), zero.toString(), "-o", merged.toString()));
        assertTrue(cli.stderr().contains("are both rank 0"), cli.stderr());
        assertEquals(ExitCodes.USAGE, cli.run("merge", zero.toString(), "-o", dir.resolve("m.pftrace").toString()));
        assertTrue(cli.stderr().contains("name it .json or .json.gz"), cli.stderr());
        assertEquals(ExitCodes.USAGE, cli.run("merge", zero.toString(), "-o", zero.toString()));
        assertEquals(ExitCodes.USAGE, cli.run("merge", zero.toString(), "-o", merged.toString(), "--clock", "sundial"));
        try (var files = Files.list(dir)) {
            assertTrue(files.noneMatch(p -> p.getFileName().toString().startsWith("m.")), "no output, no partial file");
        }
    }

    /** A cut capture is replayed first, as replay reads it: the merge keeps what precedes the cut and exits 3, as replay does (it exited 0). */
    @Test
    void aCutCaptureMergesWhatPrecedesTheCutAndExitsThree() throws Exception {
        byte[] whole = Files.readAllBytes(Captures.capture("h200-mt4"));
        Path cut = dir.resolve("cut.fltrbuf");
        Files.write(cut, java.util.Arrays.copyOf(whole, whole.length - 1000));
        Path merged = dir.resolve("m.json");
        assertEquals(ExitCodes.TRUNCATED, cli.run("merge", cut.toString(), "-o", merged.toString()), cli.stderr());
        assertTrue(cli.stderr().contains("cut short"), cli.stderr());
        assertTrue(TraceJson.MAPPER.readTree(merged.toFile()).get("traceEvents").size() > 1000, "the whole buffers are merged");
    }

    private static boolean label(JsonNode e) {
        String name = e.path("name").asText();
        return "M".equals(e.path("ph").asText()) && (name.equals("process_name") || name.equals("process_sort_index"));
    }

    private static long nanos(JsonNode ts) {
        return new java.math.BigDecimal(ts.asText()).movePointRight(3).longValueExact();
    }
}
