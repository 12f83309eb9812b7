package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.imageio.ImageIO;
import org.flagos.trace.testing.Browser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report of a merged trace, opened in headless Chromium with every request intercepted (as
 * ReportInBrowserTest opens a single trace's): the ranks section renders its two plots and its
 * tables, the page asks for nothing but its own file and logs no error, and its screenshot shows the
 * plots' colours. Pages and screenshots stay in {@code target/viewer/} (docs/summary.md shows one).
 */
class RanksReportInBrowserTest {
    private static final List<String> SECTIONS = List.of("Across ranks",
            "Top device work (kernels, copies, memsets) by total time", "Device work statistics", "Collectives",
            "Device time by op (self: work the op launched itself)", "Device streams over time", "Op table", "Capture losses");

    @TempDir
    Path dir;

    private final CliRunner cli = new CliRunner();

    @Test
    void realCapturesAsThreeRanksRenderOffline() throws Exception {
        Browser.requireTools();
        rendersOffline(MergedRanks.merge(dir, cli, true), "report-ranks-h200");
    }

    @Test
    void sixtyFourRanksRenderOffline() throws Exception {
        Browser.requireTools();
        rendersOffline(SyntheticMerge.write(dir.resolve("synthetic64.json"), 64, 12), "report-ranks-64");
    }

    private void rendersOffline(Path merged, String name) throws IOException {
        Path html = Browser.outputDir().resolve(name + ".html");
        assertEquals(0, cli.run("report", merged.toString(), "-o", html.toString()), cli.stderr());
        Path png = Browser.outputDir().resolve(name + ".png");
        Files.deleteIfExists(png);
        JsonNode seen = Browser.run(List.of("report", html.toString(), png.toString()));
        assertEquals("[]", seen.get("refused").toString(), "requests outside file: and data:");
        assertEquals("[\"" + html.toAbsolutePath().toUri() + "\"]", seen.get("requests").toString(), "the page's only request is its own file");
        assertEquals("[]", seen.get("consoleErrors").toString(), "console errors");
        assertEquals("[]", seen.get("pageErrors").toString(), "page errors");
        List<String> headings = new ArrayList<>();
        seen.get("headings").forEach(h -> headings.add(h.asText()));
        assertEquals(SECTIONS, headings);
        assertEquals(5, seen.get("charts").size(), "the step map, the device split, two bar charts and the streams' strip");
        seen.get("charts").forEach(c -> assertTrue(c.get("visible").asBoolean() && c.get("height").asDouble() > 0, "chart visible: " + c));
        BufferedImage image = ImageIO.read(png.toFile());
        Set<Integer> colours = new HashSet<>();
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                colours.add(image.getRGB(x, y) & 0xffffff);
            }
        }
        // the slowest cell of a step is drawn at full strength; every rank's bar has a comm and a compute part
        for (int rgb : new int[] {0xc0392b, 0xe67e22, 0x3b73b9}) {
            assertTrue(colours.contains(rgb), String.format("colour %06x on screen", rgb));
        }
    }
}
