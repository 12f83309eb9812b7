package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.imageio.ImageIO;
import org.flagos.trace.testing.Browser;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/**
 * {@code flagtrace report}'s page, opened in headless Chromium with every request intercepted: it
 * renders (text, the op table with the summary's rows in order, the charts, the loss counts, a
 * screenshot that is not blank), logs no error and asks for nothing but its own file. A page that
 * fetches an image and logs an error shows that the check fails on either. Screenshots stay in
 * {@code target/viewer/} (docs/viewers.md shows one).
 */
class ReportInBrowserTest {
    private static final List<String> SECTIONS = List.of("Top device work (kernels, copies, memsets) by total time", "Device work statistics",
            "Device time by op (self: work the op launched itself)", "Device streams over time", "Op table", "Capture losses");
    private static final int WIDTH = 1280;

    @Test
    void flagtracesReportOfACaptureRendersOffline() throws IOException {
        Browser.requireTools();
        Path trace = Files.write(Browser.outputDir().resolve("report-h200-app.json"), TraceJson.replay("h200-app").bytes());
        rendersOffline(trace, "report-h200-app");
    }

    @Test
    void theReportOfTorchsOwnTraceRendersOffline() throws IOException {
        Browser.requireTools();
        rendersOffline(Captures.dir().resolveSibling("torch-reference").resolve("torch_trace.json"), "report-torch");
    }

    @Test
    void aPageThatFetchesOrLogsAnErrorFailsTheCheck() throws IOException {
        Path page = Files.writeString(Browser.outputDir().resolve("hostile.html"), "<!DOCTYPE html><html><body><p>hostile</p>"
                + "<img src=\"http://192.0.2.1/pixel.png\"/><script>console.error('boom')</script></body></html>");
        JsonNode seen = Browser.run(List.of("report", page.toString(), Browser.outputDir().resolve("hostile.png").toString()));
        assertEquals("[\"http://192.0.2.1/pixel.png\"]", seen.get("refused").toString(), "the request was stopped in the browser");
        assertTrue(seen.get("consoleErrors").toString().contains("boom"), seen.toString());
        assertThrows(AssertionFailedError.class, () -> assertOffline(seen, page));
    }

    private static void rendersOffline(Path trace, String name) throws IOException {
        TraceFile file = TraceFile.read(trace);
        KeyAverages averages = KeyAverages.of(file);
        Path html = Browser.outputDir().resolve(name + ".html");
        try (OutputStream out = Files.newOutputStream(html)) {
            HtmlReport.write(trace.getFileName().toString(), file, averages, out);
        }
        Path png = Browser.outputDir().resolve(name + ".png");
        Files.deleteIfExists(png);
        JsonNode seen = Browser.run(List.of("report", html.toString(), png.toString()));
        assertOffline(seen, html);
        assertTrue(seen.get("bodyText").asInt() > 1000, "the body has text: " + seen.get("bodyText"));
        List<String> headings = new ArrayList<>();
        seen.get("headings").forEach(h -> headings.add(h.asText()));
        assertEquals(SECTIONS, headings);
        assertVisible(seen.get("opTable"), "op table");
        assertVisible(seen.get("losses"), "losses");
        assertEquals(3, seen.get("charts").size(), "two bar charts and the streams' strip");
        seen.get("charts").forEach(c -> assertVisible(c, "chart"));
        List<String> expected = new ArrayList<>();
        KeyAveragesTable.select(averages, SortKey.SELF_DEVICE_TIME_TOTAL, HtmlReport.TABLE_ROWS).forEach(r -> expected.add(r.name()));
        List<String> shown = new ArrayList<>();
        seen.get("opNames").forEach(n -> shown.add(n.asText()));
        assertEquals(expected, shown, "the op table shows the summary's rows in its order");
        assertNotBlank(png, seen.get("opTable"));
    }

    private static void assertOffline(JsonNode seen, Path page) {
        assertEquals("[]", seen.get("refused").toString(), "requests outside file: and data:");
        assertEquals("[\"" + page.toAbsolutePath().toUri() + "\"]", seen.get("requests").toString(),
                "the page's only request is its own file");
        assertEquals("[]", seen.get("consoleErrors").toString(), "console errors");
        assertEquals("[]", seen.get("pageErrors").toString(), "page errors");
    }

    private static void assertVisible(JsonNode box, String what) {
        assertTrue(box != null && box.get("visible").asBoolean() && box.get("height").asDouble() > 0, what + " visible: " + box);
    }

    /** The screenshot covers the page at the viewport's width, and is not blank: ink and the charts' colours. */
    private static void assertNotBlank(Path png, JsonNode opTable) throws IOException {
        BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(WIDTH, image.getWidth());
        assertTrue(image.getHeight() >= opTable.get("height").asDouble(), "full page: " + image.getHeight());
        long ink = 0;
        Set<Integer> colours = new HashSet<>();
        for (int y = 0; y < image.getHeight(); y += 2) {
            for (int x = 0; x < image.getWidth(); x += 2) {
                int rgb = image.getRGB(x, y) & 0xffffff;
                colours.add(rgb);
                ink += rgb == 0xffffff ? 0 : 1;
            }
        }
        long sampled = (long) (image.getWidth() / 2) * (image.getHeight() / 2);
        assertTrue(ink * 50 > sampled, "more than 2% of the page is not white: " + ink + " of " + sampled);
        assertTrue(colours.contains(0x3b73b9), "the bar charts' blue is on screen");
    }
}
