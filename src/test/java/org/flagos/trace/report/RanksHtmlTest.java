package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RanksHtml}: the report's section across a merged trace's ranks, checked against the numbers it draws from
 * ({@link RankTimes}, {@link RankTimesTable}, {@link RankOps}) on the bundled two-rank H200 merge, and on a hand-made
 * merge of 250 steps for the grouping and cutting that many steps need.
 */
class RanksHtmlTest {
    @TempDir
    Path dir;

    static final Path MERGED = Path.of("src/test/resources/captures/h200-ranks/h200-ranks.merged.json.gz");

    private static String section(Path trace) throws Exception {
        RankTimes times = RankTimes.read(trace);
        Html h = new Html();
        RanksHtml.write(h, times, RankOps.read(trace, times));
        return h.toString();
    }

    private static List<String> all(String regex, String text) {
        List<String> out = new ArrayList<>();
        Matcher m = Pattern.compile(regex).matcher(text);
        while (m.find()) {
            out.add(m.groupCount() > 0 ? m.group(1) : m.group());
        }
        return out;
    }

    @Test
    void theBundledMergeDrawsEachRanksNumbers() throws Exception {
        RankTimes times = RankTimes.read(MERGED);
        String html = section(MERGED);
        List<RankTimes.Rank> ranks = times.ranks();
        assertTrue(ranks.size() >= 2, "the bundled merge has ranks: " + ranks.size());
        assertTrue(html.contains(ranks.size() + " ranks in this merged trace."));
        // the split: each rank's four parts are its device span, the longest span drawn 800 px wide
        long max = ranks.stream().mapToLong(RankTimes.Rank::deviceSpanNs).max().orElseThrow();
        for (RankTimes.Rank r : ranks) {
            assertEquals(r.deviceSpanNs(), r.computationNs() + r.communicationNs() + r.memoryNs() + r.idleNs(), r.label());
            double width = 0;
            for (String kind : List.of("compute", "comm", "memory", "idle")) {
                List<String> w = all("<rect class=\"" + kind + "\" x=\"[^\"]*\" y=\"[^\"]*\" width=\"([^\"]*)\"[^>]*><title>" + r.label()
                        + " ", html);
                assertEquals(1, w.size(), r.label() + " " + kind);
                width += Double.parseDouble(w.get(0));
            }
            assertEquals(800.0 * r.deviceSpanNs() / max, width, 0.05, r.label() + ": its bar is its span to the one scale");
        }
        // the heat map: one outlined cell a column, on the rank the step table names slowest
        List<RankTimesTable.StepRow> steps = RankTimesTable.steps(times);
        List<String> slowest = all("<title>slowest in ([^<]*)</title>", html);
        if (times.hasSteps()) {
            assertEquals(steps.size(), slowest.size(), "one column a step (fewer than 200)");
            for (int i = 0; i < steps.size(); i++) {
                assertTrue(slowest.get(i).startsWith(steps.get(i).step() + ": " + steps.get(i).slowest() + ", "),
                        slowest.get(i) + " vs " + steps.get(i));
            }
        } else {
            assertEquals(1, slowest.size());
        }
        assertEquals(ranks.size() * Math.max(1, slowest.size()) - missingCells(times), all("<rect class=\"cell\"", html).size());
        // the op table: the first names by self device time, a column a rank
        RankOps ops = RankOps.read(MERGED, times);
        List<String> names = all("<tr><td class=\"n\">([^<]*)</td><td>", html.substring(html.indexOf("id=\"rank-ops\"")));
        assertEquals(Math.min(RanksHtml.OP_ROWS, ops.ops().size()), names.size());
        assertEquals(escape(ops.ops().get(0).name()), names.get(0));
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    /** Cells of the heat map left empty: a rank without a step others have. */
    private static int missingCells(RankTimes times) {
        if (!times.hasSteps()) {
            return 0;
        }
        java.util.Set<Long> every = new java.util.TreeSet<>();
        times.ranks().forEach(r -> every.addAll(r.stepTimes().keySet()));
        int missing = 0;
        for (RankTimes.Rank r : times.ranks()) {
            missing += every.size() - r.stepTimes().size();
        }
        return missing;
    }

    /** A merged trace of two ranks and {@code steps} steps: rank 1's steps 1 µs longer; one op named to need escaping. */
    private Path manySteps(int steps) throws Exception {
        StringBuilder ev = new StringBuilder();
        Map<Integer, Integer> pid = new HashMap<>(Map.of(0, 1000, 1, 2000));
        for (int rank = 0; rank < 2; rank++) {
            for (int s = 0; s < steps; s++) {
                long ts = 100L * s;
                ev.append(ev.length() == 0 ? "" : ",\n").append("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"ProfilerStep#").append(s)
                        .append("\",\"pid\":").append(pid.get(rank)).append(",\"tid\":1,\"ts\":").append(ts).append(",\"dur\":")
                        .append(50 + rank).append("}");
            }
            ev.append(",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"<img src=x>\",\"pid\":").append(pid.get(rank) + 1)
                    .append(",\"tid\":7,\"ts\":1,\"dur\":2,\"args\":{\"device\":0,\"stream\":7}}");
        }
        String block = "{\"traces\":2,\"pid_stride\":1000,\"inputs\":[{\"trace\":\"a.json\",\"input\":0,\"slot\":0,\"rank\":0,\"pids\":{\"1\":1000,"
                + "\"0\":1001}},{\"trace\":\"b.json\",\"input\":1,\"slot\":1,\"rank\":1,\"pids\":{\"1\":2000,\"0\":2001}}]}";
        return Files.writeString(dir.resolve("steps.json"), "{\"baseTimeNanoseconds\":1000000000,\"traceEvents\":[\n" + ev
                + "\n],\"flagtrace_merge\":" + block + "}\n");
    }

    @Test
    void manyStepsShareColumnsAndTheStepTableIsCut() throws Exception {
        String html = section(manySteps(250));
        assertTrue(html.contains("250 steps, 2 consecutive steps a column: a cell is the rank&#39;s mean over them.")
                || html.contains("250 steps, 2 consecutive steps a column: a cell is the rank's mean over them."), html.substring(0, 800));
        List<String> slowest = all("<title>slowest in ([^<]*)</title>", html);
        assertEquals(125, slowest.size(), "250 steps in 125 columns");
        assertTrue(slowest.get(0).startsWith("ProfilerStep#0-1: rank 1, 0.051ms"), slowest.get(0));
        assertTrue(slowest.get(124).startsWith("ProfilerStep#248-249: rank 1, "), slowest.get(124));
        assertEquals(250, all("<rect class=\"cell\"", html).size(), "two ranks by 125 columns");
        String table = html.substring(html.indexOf("id=\"rank-steps\""), html.indexOf("</table>", html.indexOf("id=\"rank-steps\"")));
        assertEquals(RanksHtml.STEP_ROWS, all("<tr><td class=\"n\">", table).size());
        assertTrue(html.contains("190 more steps: ./flagtrace summary --ranks prints them all."));
        assertTrue(html.contains("&lt;img src=x&gt;"), "a name is text, never markup");
        assertFalse(html.contains("<img src=x>"));
        assertFalse(html.contains("No device work in any rank."), "the kernels give each rank a span");
    }

    @Test
    void rowHeightShrinksToAFloor() {
        assertEquals(18, RanksHtml.rowHeight(1));
        assertEquals(18, RanksHtml.rowHeight(26));
        assertEquals(16, RanksHtml.rowHeight(30));
        assertEquals(3, RanksHtml.rowHeight(1000));
        assertEquals(18, RanksHtml.rowHeight(0));
    }
}
