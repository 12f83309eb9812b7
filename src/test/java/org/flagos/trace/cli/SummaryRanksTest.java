package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code flagtrace summary --ranks} over merges of the real H200 captures replayed as ranks
 * ({@link MergedRanks}: steps and one collective relabelled), checked against a recount from the
 * merged trace's JSON tree. Overlap is 0 here; RankTimesPartsTest has one that overlaps.
 */
class SummaryRanksTest {
    @TempDir
    Path dir;

    private final CliRunner cli = new CliRunner();

    @Test
    void stepsStragglerAndDeviceSplitMatchARecountOfTheMergedTrace() throws Exception {
        Path merged = MergedRanks.merge(dir, cli, true);
        Path json = dir.resolve("ranks.json");
        assertEquals(0, cli.run("summary", "--ranks", merged.toString(), "--json", json.toString()), cli.stderr());
        String table = cli.stdout();
        JsonNode got = TraceJson.MAPPER.readTree(json.toFile());
        Map<String, MergedRanks.Recount> want = MergedRanks.recount(TraceJson.MAPPER.readTree(merged.toFile()));
        assertEquals(3, want.size());

        JsonNode steps = got.get("steps");
        assertEquals(5, steps.size(), table);
        boolean rank2Slowest = false;
        for (JsonNode s : steps) {
            String step = s.get("step").asText();
            String slowest = null;
            long slowestNs = -1;
            List<Long> times = new ArrayList<>();
            for (Map.Entry<String, MergedRanks.Recount> e : want.entrySet()) {
                long t = e.getValue().steps.get(step);
                times.add(t);
                if (t > slowestNs) {
                    slowestNs = t;
                    slowest = e.getKey();
                }
            }
            times.sort(null);
            assertEquals(slowest, s.get("slowest_rank").asText(), step + "\n" + table);
            assertEquals(slowestNs / 1e3, s.get("slowest_us").asDouble(), 1e-3, step);
            assertEquals(times.get(1) / 1e3, s.get("median_us").asDouble(), 1e-3, step);
            assertEquals((slowestNs - times.get(1)) / 1e3, s.get("over_median_us").asDouble(), 1e-3, step);
            assertTrue(table.contains(step), table);
            rank2Slowest |= slowest.equals("rank 2");
        }
        assertTrue(rank2Slowest, "the h200-mt4 rank is the slowest in some step\n" + table);

        for (JsonNode r : got.get("ranks")) {
            MergedRanks.Recount w = want.get(r.get("rank").asText());
            double span = r.get("device_span_us").asDouble();
            assertEquals(w.span() / 1e3, span, 1e-3);
            assertEquals(w.comm / 1e3, r.get("communication_us").asDouble(), 1e-3);
            assertEquals((w.commOrCompute - w.comm) / 1e3, r.get("computation_us").asDouble(), 1e-3);
            assertEquals((w.busy - w.commOrCompute) / 1e3, r.get("memory_us").asDouble(), 1e-3);
            assertEquals((w.span() - w.busy) / 1e3, r.get("idle_us").asDouble(), 1e-3);
            assertEquals((w.comm + w.compute - w.commOrCompute) / 1e3, r.get("overlap_us").asDouble(), 1e-3);
            double sum = r.get("computation_us").asDouble() + r.get("communication_us").asDouble() + r.get("memory_us").asDouble()
                    + r.get("idle_us").asDouble();
            assertEquals(span, sum, 1e-3, "the split sums to the span");
            double overlap = r.get("overlap_us").asDouble();
            assertTrue(overlap >= 0 && overlap <= Math.min(r.get("communication_us").asDouble(), r.get("computation_total_us").asDouble()));
            assertTrue(r.get("communication_us").asDouble() > 0 && r.get("computation_us").asDouble() > 0
                    && r.get("memory_us").asDouble() > 0, r.toString());
            assertEquals(5, r.get("step_us").size());
            assertTrue(table.contains(r.get("rank").asText() + " "), table);
        }
    }

    @Test
    void eachRanksOpTableMatchesARecountOfTheMergedTrace() throws Exception {
        Path merged = MergedRanks.merge(dir, cli, true);
        Path json = dir.resolve("ranks.json");
        assertEquals(0, cli.run("summary", "--ranks", merged.toString(), "--json", json.toString()), cli.stderr());
        String text = cli.stdout();
        JsonNode got = TraceJson.MAPPER.readTree(json.toFile());
        Map<String, MergedRanks.Recount> want = MergedRanks.recount(TraceJson.MAPPER.readTree(merged.toFile()));
        List<String> labels = new ArrayList<>();
        got.get("op_ranks").forEach(l -> labels.add(l.asText()));
        assertEquals(List.of("rank 0", "rank 1", "rank 2"), labels);
        Map<String, long[]> seen = new java.util.TreeMap<>();
        double previous = Double.MAX_VALUE;
        for (JsonNode op : got.get("ops")) {
            String key = (op.get("device").asBoolean() ? "d " : "h ") + op.get("name").asText();
            double total = 0;
            for (int i = 0; i < labels.size(); i++) {
                long[] w = want.get(labels.get(i)).ops.getOrDefault(key, new long[2]);
                assertEquals(w[0], op.get("calls").get(i).asLong(), key + " calls in " + labels.get(i));
                assertEquals(w[1] / 1e3, op.get("self_device_us").get(i).asDouble(), 1e-3, key + " self device time in " + labels.get(i));
                total += op.get("self_device_us").get(i).asDouble();
            }
            assertTrue(total <= previous + 1e-9, "by self device time summed over the ranks: " + key);
            previous = total;
            seen.put(key, null);
        }
        for (MergedRanks.Recount r : want.values()) {
            assertTrue(seen.keySet().containsAll(r.ops.keySet()), "every op and kernel name of every rank is a row");
        }
        assertTrue(seen.containsKey("d " + MergedRanks.NCCL) && seen.containsKey("h ProfilerStep#1"), seen.keySet().toString());
        // the text: the first rows, all three ranks side by side, within 100 columns
        JsonNode first = got.get("ops").get(0);
        String line = text.lines().filter(l -> l.startsWith(first.get("name").asText().substring(0, 20))).findFirst().orElseThrow();
        for (int i = 0; i < 3; i++) {
            assertTrue(line.contains(String.format(java.util.Locale.ROOT, "%.3f %6d", first.get("self_device_us").get(i).asDouble() / 1e3,
                    first.get("calls").get(i).asLong())), line);
        }
        assertTrue(text.contains("(all 3 ranks)"), text);
        assertTrue(text.lines().allMatch(l -> l.length() <= 100), text);
    }

    @Test
    void withoutStepsOneWholeTraceRow() throws Exception {
        Path merged = MergedRanks.merge(dir, cli, false);
        assertEquals(0, cli.run("summary", "--ranks", merged.toString()), cli.stderr());
        assertTrue(cli.stdout().contains("whole trace"), cli.stdout());
        assertFalse(cli.stdout().contains("ProfilerStep#"), cli.stdout());
        assertTrue(cli.stdout().lines().allMatch(l -> l.length() <= 100), cli.stdout());
    }

    @Test
    void aTraceThatIsNoMergeIsOneLineAndOpTableOptionsAreRefused() throws Exception {
        Path one = MergedRanks.rankTrace(dir, 0, "h200-app", null, false);
        assertEquals(ExitCodes.FAILED, cli.run("summary", "--ranks", one.toString()));
        assertTrue(cli.stderr().contains("is not a merged trace"), cli.stderr());
        assertEquals(1, cli.stderr().strip().lines().count(), cli.stderr());
        assertEquals(ExitCodes.USAGE, cli.run("summary", "--ranks", one.toString(), "--limit", "3"));
        Path cut = Files.writeString(dir.resolve("cut.json"), "{\"traceEvents\":[{\"ph\":\"X\"");
        assertEquals(ExitCodes.FAILED, cli.run("summary", "--ranks", cut.toString()));
        assertEquals("flagtrace: error: " + cut + " ends in the middle of its JSON (truncated?) at line 1, column 26", cli.stderr().strip());
    }

    /**
     * Every rank is held to the end, so slots are bounded: a pid past the last slot a merge may have (65,536) is a pid of
     * no rank, left out and counted, as the one trace reader rules for every command, not held.
     */
    @Test
    void aPidPastTheSlotsAMergeMayHaveIsOfNoRank() throws Exception {
        StringBuilder json = new StringBuilder("{\"flagtrace_merge\":{\"pid_stride\":1000},\"traceEvents\":[");
        for (int slot = 0; slot <= 1 << 16; slot++) {
            json.append(slot == 0 ? "" : ",").append("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":")
                    .append((slot + 1L) * 1000).append(",\"tid\":1,\"ts\":1.000,\"dur\":1.000}");
        }
        Path many = Files.writeString(dir.resolve("many.json"), json.append("]}"));
        assertEquals(ExitCodes.OK, cli.run("summary", "--ranks", many.toString()), cli.stderr());
        assertTrue(cli.stdout().contains(" 1 on a pid of no rank"), cli.stdout());
    }

}
