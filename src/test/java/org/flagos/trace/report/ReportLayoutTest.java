package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.flagos.trace.testing.HtmlPages;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The report's layout on real traces: the findings first and the capture's losses last (one line when
 * nothing was lost, every count behind a fold), and "device time by op" only with names that have
 * device time of their own (no runtime call without any).
 */
class ReportLayoutTest {
    static final List<String> SECTIONS = List.of("Top device work (kernels, copies, memsets) by total time", "Device work statistics",
            "Device time by op (self: work the op launched itself)", "Device streams over time", "Op table", "Capture losses");

    @TempDir
    Path dir;

    private static String page(Path trace) throws Exception {
        TraceFile file = TraceFile.read(trace);
        String html = HtmlReport.render(trace.getFileName().toString(), file, KeyAverages.of(file));
        HtmlPages.assertSelfContained(html);
        return html;
    }

    private Path replayed(String capture) throws Exception {
        return Files.write(dir.resolve(capture + ".json"), TraceJson.replay(capture).bytes());
    }

    static List<String> headings(Document doc) {
        List<String> out = new ArrayList<>();
        NodeList h2 = doc.getElementsByTagName("h2");
        for (int i = 0; i < h2.getLength(); i++) {
            out.add(h2.item(i).getTextContent());
        }
        return out;
    }

    /** The elements after the last h2, in order: the losses section. */
    static List<Element> lastSection(Document doc) {
        List<Element> out = new ArrayList<>();
        NodeList h2 = doc.getElementsByTagName("h2");
        for (Node n = h2.item(h2.getLength() - 1).getNextSibling(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e) {
                out.add(e);
            }
        }
        return out;
    }

    /** The names of the bars of one chart, in order. */
    static List<String> barNames(Document doc, String id) {
        Element svg = HtmlPages.byId(doc, "svg", id);
        assertNotNull(svg, id);
        List<String> names = new ArrayList<>();
        NodeList titles = svg.getElementsByTagName("title");
        for (int i = 0; i < titles.getLength(); i++) {
            String t = titles.item(i).getTextContent();
            names.add(t.substring(0, t.lastIndexOf(": ")));
        }
        return names;
    }

    @Test
    void aCaptureWithoutLossEndsWithOneLineAndItsCountsFolded() throws Exception {
        Document doc = HtmlPages.parse(page(replayed("h200-app")));
        assertEquals(SECTIONS, headings(doc), "findings first, losses last");
        List<Element> losses = lastSection(doc);
        assertEquals(List.of("p", "details"), losses.stream().map(Element::getTagName).toList(), "one line, then the fold");
        assertEquals("No record was lost.", losses.get(0).getTextContent());
        assertEquals("losses", losses.get(0).getAttribute("id"));
        Element counts = HtmlPages.byId(doc, "table", "counts");
        assertEquals("details", counts.getParentNode().getNodeName(), "the counts behind the fold");
        assertTrue(counts.getElementsByTagName("tr").getLength() > 20, "every count of the capture");
        assertTrue(HtmlPages.byClass(doc.getDocumentElement(), "p", "loss").isEmpty(), "no loss said anywhere");
    }

    @Test
    void aCaptureThatLostRecordsSaysSoUnderTheTitleAndListsTheLossesLast() throws Exception {
        Path trace = replayed("h200-app");
        ObjectNode root = (ObjectNode) TraceJson.MAPPER.readTree(trace.toFile());
        ((ObjectNode) root.get("flagtrace")).put("invalid_records", 3);
        ((ObjectNode) root.get("flagtrace").get("dropped_outside_window")).put("kernel", 2);
        TraceJson.MAPPER.writeValue(trace.toFile(), root);
        Document doc = HtmlPages.parse(page(trace));
        assertEquals(SECTIONS, headings(doc));
        List<Element> warnings = HtmlPages.byClass(doc.getDocumentElement(), "p", "loss");
        assertTrue(warnings.get(0).getTextContent().startsWith("5 records were lost or left out by the capture"), warnings.toString());
        assertEquals("body", warnings.get(0).getParentNode().getNodeName());
        Node before = warnings.get(0);
        while (before != null && !"h2".equals(before.getNodeName())) {
            before = before.getNextSibling();
        }
        assertEquals(SECTIONS.get(0), before.getTextContent(), "the warning comes before the findings");
        Element lost = HtmlPages.byId(doc, "table", "losses");
        Set<String> rows = new LinkedHashSet<>();
        NodeList tr = lost.getElementsByTagName("tr");
        for (int i = 1; i < tr.getLength(); i++) {
            rows.add(tr.item(i).getTextContent());
        }
        assertEquals(Set.of("invalid_records3", "dropped_outside_window.kernel2"), rows, "only the counts that lost records");
        assertEquals("details", HtmlPages.byId(doc, "table", "counts").getParentNode().getNodeName());
    }

    @Test
    void torchsTraceSaysItsLossesAreUnknownInOneLineAtTheEnd() throws Exception {
        Document doc = HtmlPages.parse(page(TorchKeyAveragesTest.resource("torch_trace.json")));
        assertEquals(SECTIONS, headings(doc));
        List<Element> losses = lastSection(doc);
        assertEquals(1, losses.size());
        assertTrue(losses.get(0).getTextContent().contains("no capture accounting"));
        assertNull(HtmlPages.byId(doc, "table", "counts"));
    }

    @Test
    void deviceTimeByOpHoldsOnlyNamesWithDeviceTimeOfTheirOwn() throws Exception {
        Path trace = replayed("h200-app");
        TraceFile file = TraceFile.read(trace);
        KeyAverages averages = KeyAverages.of(file);
        Document doc = HtmlPages.parse(HtmlReport.render("h200-app", file, averages));
        List<String> names = barNames(doc, "device-per-op");
        assertEquals(List.of("app::copy_h2d_1MiB", "app::sort", "app::mm", "app::copy_h2d", "app::copy_d2h", "app::relu", "app::zeros"),
                names, "the ops that launched device work, most first");
        long runtimeRows = averages.rows().stream().filter(r -> !r.device() && r.name().startsWith("cuda")).count();
        assertTrue(runtimeRows > 20, "the trace has runtime calls: " + runtimeRows);
        assertTrue(averages.rows().stream().anyMatch(r -> r.name().equals("app::alloc")), "and an op without device work");
        String note = HtmlPages.byId(doc, "svg", "device-per-op").getNextSibling().getNextSibling().getTextContent();
        long left = averages.rows().stream().filter(r -> !r.device()).count() - names.size();
        assertTrue(note.startsWith(left + " more names (runtime calls"), note);

        Document torch = HtmlPages.parse(page(TorchKeyAveragesTest.resource("torch_trace.json")));
        List<String> torchNames = barNames(torch, "device-per-op");
        assertEquals(List.of("aten::copy_", "aten::sort", "aten::mm", "aten::clamp_min", "aten::normal_", "Activity Buffer Request",
                "aten::fill_"), torchNames, "torch's key_averages rows with self CUDA time, in its order");
        assertFalse(torchNames.contains("cudaLaunchKernel"));
    }
}
