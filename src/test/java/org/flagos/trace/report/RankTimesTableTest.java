package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RankTimesTable}: the two-rank H200 merge is written as the ranks report the run recorded
 * ({@code h200-ranks.ranks.json}), and the table's own rules: the median of an even count is the mean of the middle
 * two, the slowest of a tie is the lowest rank, a merge without steps is one "whole trace" row and one without events
 * none, step names are cut at 20 and an over-median share of a zero median is "-".
 */
class RankTimesTableTest {
    private static final Path MERGED = Path.of("src/test/resources/captures/h200-ranks/h200-ranks.merged.json.gz");
    private static final Path TRUTH = Path.of("src/test/resources/captures/h200-ranks/h200-ranks.ranks.json");

    @Test
    void theH200MergeIsWrittenAsItsRecordedRanksReport() throws Exception {
        RankTimes times = RankTimes.read(MERGED);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        RankTimesTable.write(times, RankOps.read(MERGED, times), out);
        JsonNode truth = TraceJson.MAPPER.readTree(TRUTH.toFile());
        assertEquals(truth, TraceJson.MAPPER.readTree(out.toByteArray()));
        out.reset();
        RankTimesTable.write(times, null, out);
        ObjectNode withoutOps = truth.deepCopy();
        withoutOps.remove(List.of("op_ranks", "ops"));
        assertEquals(withoutOps, TraceJson.MAPPER.readTree(out.toByteArray()), "no op table asked: none written");
        List<RankTimesTable.StepRow> steps = RankTimesTable.steps(times);
        assertEquals(8, steps.size());
        RankTimesTable.StepRow first = steps.get(0);
        assertEquals(new RankTimesTable.StepRow("ProfilerStep#0", 2, 8_673_832, 8_628_030, 8_719_635, "rank 0"), first,
                "two ranks: the median is the mean of both");
    }

    @Test
    void mediansOfOddAndEvenCounts() {
        assertEquals(3, RankTimesTable.median(new long[] {5, 1, 3}));
        assertEquals(2, RankTimesTable.median(new long[] {10, 1, 3, 2}), "(2 + 3) / 2, in whole ns");
        assertEquals(7, RankTimesTable.median(new long[] {7}));
    }

    private static String step(int pid, String name, long dur) {
        return "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" + name + "\",\"pid\":" + pid + ",\"tid\":1,\"ts\":0,\"dur\":" + dur + "}";
    }

    private static RankTimes read(Path dir, String events, String inputs) throws Exception {
        return RankTimes.read(Files.writeString(dir.resolve("m.json"), "{\"traceEvents\":[" + events
                + "],\"flagtrace_merge\":{\"pid_stride\":1000,\"inputs\":[" + inputs + "]}}"));
    }

    @Test
    void theSlowestOfATieIsTheLowestRankAndAStepMissingOnARankCountsFewerRanks(@TempDir Path dir) throws Exception {
        RankTimes times = read(dir, String.join(",", step(1000, "ProfilerStep#1", 4), step(2000, "ProfilerStep#1", 4),
                step(3000, "ProfilerStep#1", 2), step(3000, "ProfilerStep#2", 0)), "{\"slot\":0,\"rank\":0},{\"slot\":1,\"rank\":1},{\"slot\":2,\"rank\":2}");
        List<RankTimesTable.StepRow> steps = RankTimesTable.steps(times);
        assertEquals(new RankTimesTable.StepRow("ProfilerStep#1", 3, 4_000, 2_000, 4_000, "rank 0"), steps.get(0));
        assertEquals(new RankTimesTable.StepRow("ProfilerStep#2", 1, 0, 0, 0, "rank 2"), steps.get(1));
        String text = RankTimesTable.render(times);
        assertTrue(text.contains("\nProfilerStep#2           1       0.000       0.000       0.000 rank 2               0.000        -\n"), text);
        for (String line : text.lines().toList()) {
            assertTrue(line.length() <= 100, line);
        }
    }

    @Test
    void aMergeWithoutStepsIsOneWholeTraceRowAndOneWithoutEventsNone(@TempDir Path dir) throws Exception {
        RankTimes noSteps = read(dir, String.join(",", step(1000, "aten::mm", 6), step(2000, "aten::mm", 2)),
                "{\"slot\":0,\"rank\":0},{\"slot\":1,\"rank\":1}");
        assertEquals(List.of(new RankTimesTable.StepRow(RankTimesTable.WHOLE_TRACE, 2, 4_000, 2_000, 6_000, "rank 0")),
                RankTimesTable.steps(noSteps));
        assertEquals(List.of(), RankTimesTable.steps(read(dir, "", "{\"slot\":0}")), "no rank holds an event: no median of nothing");
        RankTimes longName = read(dir, step(1000, "ProfilerStep#123456789012345678", 1), "{\"slot\":0,\"rank\":0}");
        assertTrue(RankTimesTable.render(longName).contains("\nProfilerStep#1234... "), "step names cut to 20");
    }
}
