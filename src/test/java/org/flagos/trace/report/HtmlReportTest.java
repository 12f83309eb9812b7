package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.HtmlPages;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** The HTML report: self-contained, well-formed, and carrying the summary's and the capture's numbers. */
class HtmlReportTest {
    @TempDir
    Path dir;

    static Document parse(String html) throws Exception {
        return HtmlPages.parse(html);
    }

    static Element byId(Document doc, String tag, String id) {
        return HtmlPages.byId(doc, tag, id);
    }

    static void assertSelfContained(String html) {
        HtmlPages.assertSelfContained(html);
    }

    @Test
    void torchsTraceGetsTheTableTheChartsAndNoLossClaim() throws Exception {
        TraceFile trace = TraceFile.read(TorchKeyAveragesTest.resource("torch_trace.json"));
        String html = HtmlReport.render("torch_trace.json", trace, KeyAverages.of(trace));
        assertSelfContained(html);
        Document doc = parse(html);
        Element kernels = byId(doc, "svg", "top-kernels");
        assertNotNull(kernels);
        assertEquals(12, kernels.getElementsByTagName("rect").getLength(), "one bar per device name: torch's table has 12, under the top 15");
        Element firstBar = (Element) kernels.getElementsByTagName("g").item(0);
        assertEquals("Memcpy HtoD (Pageable -> Device): 248.285us over 1 calls", firstBar.getElementsByTagName("title").item(0).getTextContent());
        Element perOp = byId(doc, "svg", "device-per-op");
        assertTrue(perOp.getTextContent().contains("aten::mm32.000us"), perOp.getTextContent());
        Element streams = byId(doc, "svg", "streams");
        assertTrue(streams.getTextContent().contains("device 0 stream 7"), "torch's only stream");
        Element ops = byId(doc, "table", "ops");
        String mm = null;
        NodeList rows = ops.getElementsByTagName("tr");
        for (int i = 0; i < rows.getLength(); i++) {
            if (rows.item(i).getFirstChild().getTextContent().equals("aten::mm")) {
                mm = rows.item(i).getTextContent();
            }
        }
        assertEquals("aten::mm229.654us337.539us67.508us32.000us32.000us6.400us5", mm);
        assertEquals(40, rows.getLength(), "header + 39 rows");
        assertTrue(byId(doc, "p", "losses").getTextContent().contains("no capture accounting"));
        assertTrue(html.contains("self CUDA time total 337.595us"));
    }

    static void flatten(String prefix, JsonNode node, Map<String, Long> out) {
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getValue().isObject()) {
                flatten(prefix + e.getKey() + ".", e.getValue(), out);
            } else if (e.getValue().isIntegralNumber()) {
                out.put(prefix + e.getKey(), e.getValue().asLong());
            }
        }
    }

    @Test
    void flagtracesTraceShowsEveryAccountingCount() throws Exception {
        String name = "h200-app-tiny2k";
        Path json = dir.resolve("t.json");
        try (OutputStream out = Files.newOutputStream(json)) {
            CaptureReplay.run(CaptureReplay.request(Captures.capture(name), Captures.ops(name), null, List.of(), Map.of()), out);
        }
        Map<String, Long> expected = new LinkedHashMap<>();
        flatten("", new ObjectMapper().readTree(json.toFile()).get("flagtrace"), expected);
        assertTrue(expected.size() > 20);
        TraceFile trace = TraceFile.read(json);
        String html = HtmlReport.render(name, trace, KeyAverages.of(trace));
        assertSelfContained(html);
        Element losses = byId(parse(html), "table", "counts");
        NodeList rows = losses.getElementsByTagName("tr");
        Map<String, Long> shown = new LinkedHashMap<>();
        long lost = 0;
        for (int i = 1; i < rows.getLength(); i++) {
            Element row = (Element) rows.item(i);
            String key = row.getElementsByTagName("td").item(0).getTextContent();
            long value = Long.parseLong(row.getElementsByTagName("td").item(1).getTextContent());
            shown.put(key, value);
            lost += HtmlReport.isLoss(key) ? value : 0;
            boolean red = "loss".equals(((Element) row.getElementsByTagName("td").item(1)).getAttribute("class"));
            assertEquals(HtmlReport.isLoss(key) && value > 0, red, key);
        }
        assertEquals(expected, shown);
        assertTrue(html.contains(lost == 0 ? "No record was lost." : lost + " records lost"), "the sum is stated");
    }

    @Test
    void namesCannotBreakThePage() throws Exception {
        Path json = Files.writeString(dir.resolve("evil.json"), "{\"traceEvents\":["
                + "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"</title><script>x()</script> & \\\"q\\\" \\u0001\",\"pid\":1,\"tid\":1,"
                + "\"ts\":0,\"dur\":10,\"args\":{\"External id\":1}},"
                + "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k<T>\",\"pid\":0,\"tid\":7,\"ts\":2,\"dur\":3,\"args\":{\"External id\":1}}]}");
        TraceFile trace = TraceFile.read(json);
        String html = HtmlReport.render("evil <b>", trace, KeyAverages.of(trace));
        assertSelfContained(html);
        Document doc = parse(html);
        assertEquals(0, doc.getElementsByTagName("script").getLength());
        assertTrue(byId(doc, "table", "ops").getTextContent().contains("</title><script>x()</script> & \"q\""));
    }
}
