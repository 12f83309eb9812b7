package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.flagos.trace.report.HtmlReport;
import org.flagos.trace.report.KeyAverages;
import org.flagos.trace.report.KeyAveragesTable;
import org.flagos.trace.report.TraceFile;
import org.flagos.trace.testing.HtmlPages;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * {@code flagtrace report} of a merged trace: its ranks section holds what a recount of the merged
 * trace's JSON finds (real H200 replays as three ranks, {@link MergedRanks}), one mark per rank and
 * step with each step's slowest rank marked, and a 64-rank synthetic merge keeps the page's rules;
 * every other page keeps its bytes.
 */
class ReportRanksTest {
    @TempDir
    Path dir;

    private final CliRunner cli = new CliRunner();

    private String report(Path trace) throws Exception {
        Path html = dir.resolve(trace.getFileName() + ".html");
        assertEquals(0, cli.run("report", trace.toString(), "-o", html.toString()), cli.stderr());
        return Files.readString(html, StandardCharsets.UTF_8);
    }

    private static String ms(long ns) {
        return String.format(Locale.ROOT, "%.3fms", ns / 1e6);
    }

    private static List<String> titles(List<Element> elements) {
        List<String> out = new ArrayList<>();
        for (Element e : elements) {
            out.add(e.getElementsByTagName("title").item(0).getTextContent());
        }
        return out;
    }

    @Test
    void theRanksSectionHoldsTheRecountedNumbersOfRealCaptures() throws Exception {
        Path merged = MergedRanks.merge(dir, cli, true);
        String html = report(merged);
        HtmlPages.assertSelfContained(html);
        Document doc = HtmlPages.parse(html);
        Map<String, MergedRanks.Recount> want = MergedRanks.recount(TraceJson.MAPPER.readTree(merged.toFile()));
        List<String> ranks = new ArrayList<>(want.keySet());
        assertEquals(List.of("rank 0", "rank 1", "rank 2"), ranks);
        List<String> steps = List.of("ProfilerStep#1", "ProfilerStep#2", "ProfilerStep#3", "ProfilerStep#4", "ProfilerStep#5");

        // the heat map: one cell per rank and step, holding its time; one slowest mark per step, on the recount's slowest
        Element map = HtmlPages.byId(doc, "svg", "rank-steps-map");
        assertNotNull(map);
        List<String> cells = titles(HtmlPages.byClass(map, "rect", "cell"));
        assertEquals(ranks.size() * steps.size(), cells.size());
        List<String> marks = titles(HtmlPages.byClass(map, "rect", "slowest"));
        assertEquals(steps.size(), marks.size());
        Set<String> slowRanks = new HashSet<>();
        for (int k = 0; k < steps.size(); k++) {
            String step = steps.get(k);
            String slowest = null;
            long slowestNs = -1;
            for (String r : ranks) {
                long t = want.get(r).steps.get(step);
                String cell = r + ", " + step + ": " + ms(t) + " (median ";
                assertTrue(cells.stream().anyMatch(c -> c.startsWith(cell)), cell + " in " + cells);
                if (t > slowestNs) {
                    slowestNs = t;
                    slowest = r;
                }
            }
            assertTrue(marks.get(k).startsWith("slowest in " + step + ": " + slowest + ", " + ms(slowestNs) + " ("), marks.get(k));
            slowRanks.add(slowest);
        }
        assertTrue(slowRanks.contains("rank 2"), "the h200-mt4 rank is the slowest in some step: " + marks);

        // the device split: four parts per rank that sum to its span, with the recount's values, and the overlap stripe
        Element split = HtmlPages.byId(doc, "svg", "rank-split");
        String[] kinds = {"compute", "comm", "memory", "idle", "overlap"};
        List<List<Element>> parts = new ArrayList<>();
        for (String kind : kinds) {
            parts.add(HtmlPages.byClass(split, "rect", kind));
            assertEquals(ranks.size(), parts.get(parts.size() - 1).size(), kind);
        }
        double widest = 0;
        for (int i = 0; i < ranks.size(); i++) {
            MergedRanks.Recount w = want.get(ranks.get(i));
            long[] ns = {w.commOrCompute - w.comm, w.comm, w.busy - w.commOrCompute, w.span() - w.busy, w.comm + w.compute - w.commOrCompute};
            String[] words = {"Compute", "Comm", "Memory", "Idle"};
            double width = 0;
            for (int k = 0; k < 4; k++) {
                Element rect = parts.get(k).get(i);
                assertTrue(rect.getTextContent().startsWith(ranks.get(i) + " " + words[k] + ": " + ms(ns[k]) + " ("), rect.getTextContent());
                width += Double.parseDouble(rect.getAttribute("width"));
            }
            assertTrue(parts.get(4).get(i).getTextContent().startsWith(ranks.get(i) + " Overlap: " + ms(ns[4]) + " of " + ms(w.comm)));
            assertEquals(w.span() * 800.0 / want.values().stream().mapToLong(MergedRanks.Recount::span).max().orElseThrow(), width, 0.3,
                    "the bar is the span, to one scale");
            widest = Math.max(widest, width);
        }
        assertEquals(800, widest, 0.3, "the longest span fills the plot");

        // the step table
        NodeList rows = HtmlPages.byId(doc, "table", "rank-steps").getElementsByTagName("tr");
        assertEquals(1 + steps.size(), rows.getLength());
        for (int k = 0; k < steps.size(); k++) {
            NodeList td = ((Element) rows.item(k + 1)).getElementsByTagName("td");
            List<Long> times = new ArrayList<>();
            ranks.forEach(r -> times.add(want.get(r).steps.get(td.item(0).getTextContent())));
            times.sort(null);
            assertEquals(steps.get(k), td.item(0).getTextContent());
            assertEquals(ms(times.get(1)), td.item(2).getTextContent(), "median");
            assertEquals(ms(times.get(2)), td.item(4).getTextContent(), "slowest");
            assertEquals(marks.get(k).split(": ")[1].split(",")[0], td.item(5).getTextContent(), "the slowest rank, as the map marks it");
            assertEquals(ms(times.get(2) - times.get(1)), td.item(6).getTextContent(), "over the median");
        }

        // the op table: the recount's names by self device time over the ranks, each rank's time and calls side by side
        NodeList opRows = HtmlPages.byId(doc, "table", "rank-ops").getElementsByTagName("tr");
        assertEquals("NameMedianrank 0rank 1rank 2", opRows.item(0).getTextContent());
        assertEquals(1 + 15, opRows.getLength(), "the first 15 names");
        Map<String, Long> total = new java.util.HashMap<>();
        want.values().forEach(w -> w.ops.forEach((key, v) -> total.merge(key, v[1], Long::sum)));
        List<String> order = new ArrayList<>(total.keySet()); // by the sum, then name, host rows first ("h" before "d" is not name order)
        order.sort(java.util.Comparator.comparing((String key) -> -total.get(key)).thenComparing(key -> key.substring(2))
                .thenComparing(key -> key.startsWith("d")));
        for (int i = 1; i < opRows.getLength(); i++) {
            NodeList td = ((Element) opRows.item(i)).getElementsByTagName("td");
            String key = order.get(i - 1);
            assertEquals(key.substring(2), td.item(0).getTextContent(), "row " + i);
            for (int r = 0; r < ranks.size(); r++) {
                long[] w = want.get(ranks.get(r)).ops.getOrDefault(key, new long[2]);
                assertEquals(KeyAveragesTable.time(w[1] / 1e3) + " (" + w[0] + ")", td.item(2 + r).getTextContent(), key + " " + ranks.get(r));
            }
        }
    }

    @Test
    void theSectionOnlyAddsAndAnyOtherPageKeepsItsBytes() throws Exception {
        Path merged = MergedRanks.merge(dir, cli, true);
        String html = report(merged);
        int from = html.indexOf("<h2 id=\"ranks\">");
        int to = html.indexOf("<h2>Top device work");
        assertTrue(from > 0 && to > from);
        TraceFile file = TraceFile.read(merged);
        assertEquals(HtmlReport.render(merged.getFileName().toString(), file, KeyAverages.of(file)), html.substring(0, from) + html.substring(to),
                "without its ranks section, a merged trace's page is the page of any trace");

        Path one = MergedRanks.rankTrace(dir, 0, "h200-app", null, true);
        String page = report(one);
        TraceFile single = TraceFile.read(one);
        assertEquals(HtmlReport.render(one.getFileName().toString(), single, KeyAverages.of(single)), page);
        assertFalse(page.contains("Across ranks") || page.contains("rank-"), "a trace that is no merge has no ranks section");
    }

    @Test
    void sixtyFourRanksRenderWithinThePageRules() throws Exception {
        int ranks = 64;
        int steps = 10;
        Path merged = SyntheticMerge.write(dir.resolve("synthetic64.json"), ranks, steps);
        String html = report(merged);
        HtmlPages.assertSelfContained(html);
        Document doc = HtmlPages.parse(html);
        assertTrue(html.length() < 1_500_000, "page size " + html.length());
        Element map = HtmlPages.byId(doc, "svg", "rank-steps-map");
        assertEquals(ranks * steps, HtmlPages.byClass(map, "rect", "cell").size());
        List<String> marks = titles(HtmlPages.byClass(map, "rect", "slowest"));
        assertEquals(steps, marks.size());
        for (int k = 0; k < steps; k++) {
            assertTrue(marks.get(k).startsWith("slowest in ProfilerStep#" + k + ": rank " + SyntheticMerge.straggler(k, ranks) + ", "),
                    marks.get(k));
        }
        Element split = HtmlPages.byId(doc, "svg", "rank-split");
        for (String kind : List.of("compute", "comm", "memory", "idle", "overlap")) {
            assertEquals(ranks, HtmlPages.byClass(split, "rect", kind).size(), kind);
        }
        assertTrue(HtmlPages.byClass(split, "rect", "overlap").get(0).getTextContent()
                .startsWith("rank 0 Overlap: " + ms(steps * 1_000_000L) + " of " + ms(steps * 2_000_000L)), "1 ms of each step's 2 ms all-reduce");
        // labels: every other rank (rows of 7 px), all of them within the drawing
        int labels = 0;
        NodeList texts = map.getElementsByTagName("text");
        for (int i = 0; i < texts.getLength(); i++) {
            labels += texts.item(i).getTextContent().startsWith("rank ") ? 1 : 0;
        }
        assertEquals(ranks / 2, labels);
        assertTrue(Double.parseDouble(map.getAttribute("height")) <= 18 + ranks * 7 + 4);
        // the op table: 8 rank columns, the rank that differs (rank 40: a longer GEMM) among them, the hostile name escaped
        NodeList opRows = HtmlPages.byId(doc, "table", "rank-ops").getElementsByTagName("tr");
        NodeList head = ((Element) opRows.item(0)).getElementsByTagName("th");
        assertEquals(2 + 8, head.getLength());
        List<String> shown = new ArrayList<>();
        for (int i = 2; i < head.getLength(); i++) {
            shown.add(head.item(i).getTextContent());
        }
        assertEquals(List.of("rank 0", "rank 1", "rank 2", "rank 3", "rank 4", "rank 5", "rank 6", "rank 40"), shown);
        assertTrue(html.contains("8 of 64 ranks are shown"), "the page says how the table is cut");
        assertTrue(HtmlPages.byId(doc, "table", "rank-ops").getTextContent().contains(SyntheticMerge.HOSTILE));
        assertEquals(0, doc.getElementsByTagName("script").getLength());
    }

    @Test
    void manyStepsShareColumns() throws Exception {
        Path merged = SyntheticMerge.write(dir.resolve("long.json"), 4, 450);
        String html = report(merged);
        Document doc = HtmlPages.parse(html);
        Element map = HtmlPages.byId(doc, "svg", "rank-steps-map");
        assertEquals(4 * 150, HtmlPages.byClass(map, "rect", "cell").size(), "450 steps, 3 a column");
        assertEquals(150, HtmlPages.byClass(map, "rect", "slowest").size());
        assertTrue(html.contains("450 steps, 3 consecutive steps a column"), "the page says so");
        assertTrue(html.contains("390 more steps: ./flagtrace summary --ranks prints them all."));
    }

    @Test
    void aMergeWhoseRanksHaveNothingToShowStillReports() throws Exception {
        String event = "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":5,\"tid\":1,\"ts\":1.000,\"dur\":2.000}";
        for (String inputs : List.of("[{\"slot\":0,\"rank\":0}]", "[]")) {
            Path merged = Files.writeString(dir.resolve("empty.json"), "{\"traceEvents\":[" + event + "],\"flagtrace_merge\":{\"pid_stride\":1000,"
                    + "\"inputs\":" + inputs + "}}");
            String html = report(merged);
            HtmlPages.assertSelfContained(html);
            Document doc = HtmlPages.parse(html);
            assertNotNull(HtmlPages.byId(doc, "h2", "ranks"), inputs);
            assertEquals(0, cli.run("summary", "--ranks", merged.toString()), cli.stderr());
            assertTrue(cli.stdout().contains("1 on a pid of no rank"), cli.stdout());
        }
    }
}
