package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RankOps}: a merged trace's rows split by rank add up to the whole trace's rows (the bundled two-rank H200
 * merge), sorted by self device time over the ranks; medians of odd and even counts; with more ranks than columns, the
 * ranks farthest from the median are shown.
 */
class RankOpsTest {
    @TempDir
    Path dir;

    @Test
    void theRanksAddUpToTheWholeTrace() throws Exception {
        Path merged = RanksHtmlTest.MERGED;
        RankTimes times = RankTimes.read(merged);
        RankOps ops = RankOps.read(merged, times);
        KeyAverages whole = TraceFile.read(merged, TraceFile.DEFAULT_MAX_EVENTS, dir).averages();
        assertEquals(times.ranks().stream().map(RankTimes.Rank::label).toList(), ops.labels());
        assertEquals(0, ops.unplacedEvents());
        assertEquals(whole.rows().size(), ops.ops().size(), "one op a row name");
        for (RankOps.Op op : ops.ops()) {
            KeyAveragesRow row = whole.row(op.name(), op.device());
            assertNotNull(row, op.name());
            assertEquals(row.count(), java.util.Arrays.stream(op.calls()).sum(), op.name() + ": calls");
            assertEquals(row.selfDeviceUs(), op.totalDeviceUs(), 1e-6 * Math.max(1, row.selfDeviceUs()), op.name() + ": self device time");
        }
        for (int i = 1; i < ops.ops().size(); i++) {
            assertTrue(ops.ops().get(i - 1).totalDeviceUs() >= ops.ops().get(i).totalDeviceUs(), "largest first");
        }
        assertArrayEquals(new int[] {0, 1}, ops.shownRanks(15, 8), "two ranks fit");
    }

    @Test
    void mediansOfOddAndEvenCounts() {
        RankOps.Op odd = new RankOps.Op("k", true, new long[] {5, 1, 3}, new double[] {9, 1, 4});
        assertEquals(4.0, odd.medianDeviceUs());
        assertEquals(3, odd.medianCalls());
        assertEquals(14.0, odd.totalDeviceUs());
        RankOps.Op even = new RankOps.Op("k", true, new long[] {4, 1, 2, 7}, new double[] {8, 1, 2, 3});
        assertEquals(2.5, even.medianDeviceUs());
        assertEquals(3, even.medianCalls(), "(2 + 4) / 2");
        assertArrayEquals(new double[] {8, 1, 2, 3}, even.selfDeviceUs(), "the median leaves the ranks' values in rank order");
        assertEquals(0.0, new RankOps.Op("k", true, new long[0], new double[0]).medianDeviceUs());
    }

    @Test
    void withMoreRanksThanColumnsTheFarthestAreShown() throws Exception {
        int ranks = 10;
        StringBuilder events = new StringBuilder();
        StringBuilder inputs = new StringBuilder();
        for (int r = 0; r < ranks; r++) {
            int host = (r + 1) * 1000;
            long dur = r == 8 || r == 9 ? 100 : 10; // ranks 8 and 9 are the odd ones out
            events.append(r == 0 ? "" : ",\n").append("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":").append(host + 1)
                    .append(",\"tid\":7,\"ts\":1,\"dur\":").append(dur).append(",\"args\":{\"device\":0,\"stream\":7}}");
            inputs.append(r == 0 ? "" : ",").append("{\"trace\":\"r").append(r).append(".json\",\"input\":").append(r).append(",\"slot\":")
                    .append(r).append(",\"rank\":").append(r).append(",\"pids\":{\"1\":").append(host).append(",\"0\":").append(host + 1).append("}}");
        }
        Path merged = Files.writeString(dir.resolve("ten.json"), "{\"traceEvents\":[\n" + events + "\n],\"flagtrace_merge\":{\"traces\":"
                + ranks + ",\"pid_stride\":1000,\"inputs\":[" + inputs + "]}}\n");
        RankTimes times = RankTimes.read(merged);
        RankOps ops = RankOps.read(merged, times);
        assertEquals(List.of("k"), ops.ops().stream().map(RankOps.Op::name).toList());
        assertEquals(10.0, ops.ops().get(0).medianDeviceUs());
        assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5, 8, 9}, ops.shownRanks(15, 8), "the two outliers, then the lowest ranks on the tie");
        assertArrayEquals(new int[] {8, 9}, ops.shownRanks(15, 2));
    }
}
