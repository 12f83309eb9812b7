package org.flagos.trace.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.cli.SyntheticRanks;
import org.flagos.trace.report.KeyAverages;
import org.flagos.trace.report.KeyAveragesRow;
import org.flagos.trace.report.RankTimes;
import org.flagos.trace.report.RankTimesTable;
import org.flagos.trace.report.TraceFile;
import org.flagos.trace.testing.TableRows;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SQL analyses on DuckDB over the events table of a 64-rank merge of the real h200-app capture
 * ({@link SyntheticRanks}: shifted clocks, steps, NCCL-named kernels, one straggler; the table
 * written by {@code flagtrace tables}), against the
 * Java streaming recount of the same merged trace ({@code summary --ranks}'s {@link RankTimes}) and,
 * for the op table, against {@link KeyAverages} of one rank's own trace.
 */
class SqlAnalysesTest {
    static final int RANKS = 64;
    static final int STRAGGLER = 41;

    @TempDir
    static Path dir;

    static Path merged;
    static Map<String, ResultTable> tables = new HashMap<>();

    @BeforeAll
    static void build() throws Exception {
        Path events = SyntheticRanks.events(dir, RANKS, STRAGGLER);
        merged = dir.resolve("merged.json");
        try (DuckDbAnalyses duck = DuckDbAnalyses.open(events)) {
            for (ResultTable t : duck.runAll()) {
                tables.put(t.name(), t);
            }
        }
    }

    private static List<Map<String, Object>> rows(String table) {
        return TableRows.maps(tables.get(table));
    }

    @Test
    void stepsAcrossRanksEqualSummaryRanksAndNameTheStraggler() throws Exception {
        RankTimes java = RankTimes.read(merged);
        List<RankTimesTable.StepRow> want = RankTimesTable.steps(java);
        List<Map<String, Object>> got = rows("step_stragglers");
        assertEquals(5, want.size());
        assertEquals(want.size(), got.size());
        for (int i = 0; i < want.size(); i++) {
            RankTimesTable.StepRow w = want.get(i);
            Map<String, Object> g = got.get(i);
            assertEquals(w.step(), "ProfilerStep#" + g.get("step"));
            assertEquals((long) w.ranks(), g.get("ranks"));
            assertEquals(w.medianNs(), g.get("median_ns"), w.step());
            assertEquals(w.fastestNs(), g.get("fastest_ns"), w.step());
            assertEquals(w.slowestNs(), g.get("slowest_ns"), w.step());
            assertEquals(w.slowest(), "rank " + g.get("slowest_rank"), w.step());
            assertEquals(w.overMedianNs(), g.get("over_median_ns"), w.step());
        }
        Map<String, Object> straggled = got.get(SyntheticRanks.STRAGGLER_STEP - 1);
        assertEquals((long) SyntheticRanks.STRAGGLER_STEP, straggled.get("step"));
        assertEquals((long) STRAGGLER, straggled.get("slowest_rank"), "the analysis names the straggler");
        long over = (Long) straggled.get("over_median_ns");
        assertTrue(over >= SyntheticRanks.STRAGGLER_NS - 22_000 && over <= SyntheticRanks.STRAGGLER_NS + 22_000, "over the median by " + over);
        for (Map<String, Object> s : got) {
            if (!s.get("step").equals((long) SyntheticRanks.STRAGGLER_STEP)) {
                assertTrue((Long) s.get("over_median_ns") <= 22_000, s.toString());
            }
        }
    }

    @Test
    void perRankStepsAndDeviceSplitEqualSummaryRanks() throws Exception {
        RankTimes java = RankTimes.read(merged);
        assertEquals(RANKS, java.ranks().size());
        Map<Long, Map<String, Object>> device = new HashMap<>();
        for (Map<String, Object> r : rows("rank_device")) {
            device.put((Long) r.get("rank"), r);
        }
        Map<Long, Map<Long, Long>> steps = new HashMap<>();
        for (Map<String, Object> r : rows("rank_steps")) {
            steps.computeIfAbsent((Long) r.get("rank"), k -> new HashMap<>()).put((Long) r.get("step"), (Long) r.get("time_ns"));
            assertEquals((Long) r.get("end_ns") - (Long) r.get("start_ns"), r.get("time_ns"));
        }
        assertEquals(RANKS, device.size());
        for (RankTimes.Rank w : java.ranks()) {
            Map<String, Object> g = device.get(w.rank());
            String who = w.label();
            assertEquals(w.stepTimes(), steps.get(w.rank()), who);
            assertEquals((long) w.stepTimes().size(), g.get("steps"), who);
            long sum = w.stepTimes().values().stream().mapToLong(Long::longValue).sum();
            assertEquals(sum / w.stepTimes().size(), g.get("mean_step_ns"), who);
            assertEquals(w.wholeNs(), g.get("whole_ns"), who);
            assertEquals(w.deviceSpanNs(), g.get("device_span_ns"), who);
            assertEquals(w.computationNs(), g.get("computation_ns"), who);
            assertEquals(w.communicationNs(), g.get("communication_ns"), who);
            assertEquals(w.memoryNs(), g.get("memory_ns"), who);
            assertEquals(w.idleNs(), g.get("idle_ns"), who);
            assertEquals(w.overlapNs(), g.get("overlap_ns"), who);
            assertEquals(w.computationTotalNs(), g.get("computation_total_ns"), who);
            assertEquals(w.deviceEvents(), g.get("device_events"), who);
            assertTrue(w.communicationNs() > 0 && w.computationNs() > 0 && w.memoryNs() > 0 && w.idleNs() > 0, who);
        }
        long straggler = (Long) device.get((long) STRAGGLER).get("idle_ns");
        long other = (Long) device.get(0L).get("idle_ns");
        assertTrue(straggler > other + SyntheticRanks.STRAGGLER_NS / 2, "the straggler's device idles through its long step");
    }

    @Test
    void withoutStepsOneWholeTraceRowAsSummaryRanks(@TempDir Path bare) throws Exception {
        Path events = SyntheticRanks.events(bare, 3, -1, false);
        RankTimes java = RankTimes.read(bare.resolve("merged.json"));
        List<RankTimesTable.StepRow> want = RankTimesTable.steps(java);
        assertEquals(1, want.size());
        assertEquals(RankTimesTable.WHOLE_TRACE, want.get(0).step());
        try (DuckDbAnalyses duck = DuckDbAnalyses.open(events)) {
            ResultTable got = duck.run("step_stragglers");
            assertEquals(1, got.rows().size(), got.render());
            List<Object> row = got.rows().get(0);
            assertEquals(Arrays.asList(null, 3L, want.get(0).medianNs(), want.get(0).fastestNs(), want.get(0).slowestNs(),
                    Long.parseLong(want.get(0).slowest().substring("rank ".length())), want.get(0).overMedianNs()), row, got.render());
            assertEquals(0, duck.run("rank_steps").rows().size());
            for (List<Object> r : duck.run("rank_device").rows()) {
                assertEquals(0L, r.get(1), "no steps");
                assertEquals(null, r.get(2), "no mean step");
            }
        }
    }

    @Test
    void opTableOfARankEqualsKeyAveragesOfItsOwnTrace() throws Exception {
        KeyAverages want = KeyAverages.of(TraceFile.read(dir.resolve("rank0.json")));
        int compared = 0;
        for (Map<String, Object> g : rows("rank_ops")) {
            if (!g.get("rank").equals(0L)) {
                continue;
            }
            boolean deviceRow = g.get("kind").equals("device");
            KeyAveragesRow w = want.row((String) g.get("name"), deviceRow);
            String who = g.toString();
            assertTrue(w != null, who);
            assertEquals(w.count(), g.get("calls"), who);
            assertEquals(w.selfDeviceUs(), (Long) g.get("self_device_ns") / 1e3, 1e-3, who);
            assertEquals(w.deviceTotalUs(), (Long) g.get("device_total_ns") / 1e3, 1e-3, who);
            if (!deviceRow) {
                assertEquals(w.cpuTotalUs(), (Long) g.get("cpu_total_ns") / 1e3, 1e-3, who);
            }
            compared++;
        }
        assertTrue(compared >= 10, "rows compared: " + compared);
    }
}
