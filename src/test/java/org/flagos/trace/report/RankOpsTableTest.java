package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RankOpsTable}: the bundled two-rank H200 merge as a text table (every rank a column, each cell the rank's own
 * self device ms and calls, names cut to 30 characters, at most 100 characters a line, the first 20 names and a line for
 * the rest) and as JSON (every name, every rank, the numbers {@link RankOps} found); with more ranks than columns, the
 * median column and the ranks farthest from it; names with terminal control characters made safe in the text.
 */
class RankOpsTableTest {
    @TempDir
    Path dir;

    @Test
    void theTwoRankMergeAsText() throws Exception {
        Path merged = RanksHtmlTest.MERGED;
        RankOps ops = RankOps.read(merged, RankTimes.read(merged));
        String text = RankOpsTable.render(ops);
        String[] lines = text.split("\n");
        int n = ops.ops().size();
        assertTrue(n > RankOpsTable.TEXT_ROWS, "the merge has more names than the table shows: " + n);
        assertEquals("Top 20 of " + n + " names by self device time over all ranks: each rank's self device ms and calls", lines[0]);
        assertEquals("(all 2 ranks)", lines[1]);
        assertEquals(String.format(Locale.ROOT, "%-30s %9s %6s %9s %6s", "Name", ops.labels().get(0), "calls", ops.labels().get(1), "calls"),
                lines[2]);
        assertEquals(3 + RankOpsTable.TEXT_ROWS + 1, lines.length, text);
        assertEquals((n - 20) + " more names: --json writes every name for every rank", lines[lines.length - 1]);
        boolean cut = false;
        for (int row = 0; row < RankOpsTable.TEXT_ROWS; row++) {
            RankOps.Op op = ops.ops().get(row);
            String line = lines[3 + row];
            assertTrue(line.length() <= 100, line);
            String name = line.substring(0, 30).strip();
            if (op.name().length() > 30) {
                assertEquals(op.name().substring(0, 27) + "...", name);
                cut = true;
            } else {
                assertEquals(op.name(), name);
            }
            String[] cells = line.substring(30).strip().split(" +");
            assertEquals(4, cells.length, line);
            for (int r = 0; r < 2; r++) {
                assertEquals(op.selfDeviceUs()[r] / 1e3, Double.parseDouble(cells[2 * r]), 0.0005, line);
                assertEquals(op.calls()[r], Long.parseLong(cells[2 * r + 1]), line);
            }
        }
        assertTrue(cut, "the kernels' long names are cut");
    }

    @Test
    void theJsonHoldsEveryNameForEveryRank() throws Exception {
        Path merged = RanksHtmlTest.MERGED;
        RankOps ops = RankOps.read(merged, RankTimes.read(merged));
        StringWriter out = new StringWriter();
        try (JsonGenerator g = TraceJson.MAPPER.getFactory().createGenerator(out)) {
            g.writeStartObject();
            RankOpsTable.write(ops, g);
            g.writeEndObject();
        }
        JsonNode doc = TraceJson.MAPPER.readTree(out.toString());
        assertEquals(ops.labels(), TraceJson.MAPPER.convertValue(doc.get("op_ranks"), List.class));
        assertEquals(ops.ops().size(), doc.get("ops").size(), "every name, not the text's 20");
        for (int i = 0; i < ops.ops().size(); i++) {
            RankOps.Op op = ops.ops().get(i);
            JsonNode j = doc.get("ops").get(i);
            assertEquals(op.name(), j.get("name").asText());
            assertEquals(op.device(), j.get("device").asBoolean());
            assertEquals(2, j.get("calls").size());
            for (int r = 0; r < 2; r++) {
                assertEquals(op.calls()[r], j.get("calls").get(r).asLong(), op.name());
                assertEquals(op.selfDeviceUs()[r], j.get("self_device_us").get(r).asDouble(), 0.0, op.name());
            }
        }
    }

    @Test
    void withMoreRanksTheMedianAndTheFarthestRanks() throws Exception {
        // 5 ranks, 22 kernels: kernel i takes i + 1 µs on ranks 0..3 and ten times that on rank 4
        int ranks = 5;
        StringBuilder events = new StringBuilder();
        StringBuilder inputs = new StringBuilder();
        for (int r = 0; r < ranks; r++) {
            int host = (r + 1) * 1000;
            for (int i = 0; i < 22; i++) {
                String name = i == 21 ? "k\\u001b[2J" + "x".repeat(40) : "k" + i;
                events.append(events.length() == 0 ? "" : ",\n").append("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"").append(name)
                        .append("\",\"pid\":").append(host + 1).append(",\"tid\":7,\"ts\":").append(1 + 200 * i).append(",\"dur\":")
                        .append((i + 1) * (r == 4 ? 10 : 1)).append(",\"args\":{\"device\":0,\"stream\":7}}");
            }
            inputs.append(r == 0 ? "" : ",").append("{\"trace\":\"r").append(r).append(".json\",\"input\":").append(r).append(",\"slot\":")
                    .append(r).append(",\"rank\":").append(r).append(",\"pids\":{\"1\":").append(host).append(",\"0\":").append(host + 1).append("}}");
        }
        Path merged = Files.writeString(dir.resolve("five.json"), "{\"traceEvents\":[\n" + events + "\n],\"flagtrace_merge\":{\"traces\":"
                + ranks + ",\"pid_stride\":1000,\"inputs\":[" + inputs + "]}}\n");
        RankOps ops = RankOps.read(merged, RankTimes.read(merged));
        String text = RankOpsTable.render(ops);
        String[] lines = text.split("\n");
        List<String> labels = ops.labels();
        assertEquals("(median of all 5 ranks, then the 3 ranks farthest from the median over these rows)", lines[1]);
        assertEquals(String.format(Locale.ROOT, "%-30s %9s %6s %9s %6s %9s %6s %9s %6s", "Name", "median", "calls", labels.get(0), "calls",
                labels.get(1), "calls", labels.get(4), "calls"), lines[2], "rank 4 is the odd one out, then the lowest ranks");
        assertFalse(text.contains("\u001b"), "no terminal escape reaches the table");
        assertEquals(String.format(Locale.ROOT, "%-30s %9s %6s %9s %6s %9s %6s %9s %6s", "k\\x1b[2J" + "x".repeat(19) + "...", "0.022", 1, "0.022", 1,
                "0.022", 1, "0.220", 1), lines[3], "the largest: 22 µs on four ranks, 220 µs on rank 4; the name made safe, then cut");
        assertEquals(String.format(Locale.ROOT, "%-30s %9s %6s %9s %6s %9s %6s %9s %6s", "k2", "0.003", 1, "0.003", 1, "0.003", 1, "0.030", 1),
                lines[3 + 19], "the 20th");
        assertEquals("2 more names: --json writes every name for every rank", lines[23]);
        assertEquals(24, lines.length);
        for (String line : lines) {
            assertTrue(line.length() <= 100, line.length() + ": " + line);
        }
    }
}
