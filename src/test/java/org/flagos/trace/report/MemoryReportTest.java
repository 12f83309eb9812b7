package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.flagos.trace.testing.TargetScratch;
import org.flagos.trace.testing.TraceJson;
import org.flagos.trace.vendors.cupti.MemoryCapture;
import org.junit.jupiter.api.Test;

/**
 * {@code flagtrace report}'s device memory over time: read from a trace's {@code [memory]} instants
 * (the h200-app capture with a MEMORY2 record beside each malloc and free), drawn per device with its
 * peak; a trace without them gets no such section.
 */
class MemoryReportTest {
    @Test
    void aTraceWithMemoryEventsGetsItsPlotAndOneWithoutDoesNot() throws IOException {
        try (TargetScratch scratch = TargetScratch.of("MemoryReportTest")) {
            Path with = Files.write(scratch.dir().resolve("with.json"),
                    TraceJson.replay("h200-app", MemoryCapture.injected(MemoryCapture.Placement.BEFORE_CALL)).bytes());
            Path without = Files.write(scratch.dir().resolve("without.json"), TraceJson.replay("h200-app").bytes());

            TraceFile trace = TraceFile.read(with);
            assertEquals(11, trace.memory().events());
            MemoryTimeline.Series gpu = trace.memory().devices().get("device 0");
            assertEquals(11, gpu.size);
            assertEquals(44L << 20, gpu.peak, "1 + 2 + 3 + 4 + 5 - 1 + 6 + 7 + 8 + 9 MiB at the most");
            assertEquals(42L << 20, gpu.total[gpu.size - 1]);
            String html = HtmlReport.render("with", trace, KeyAverages.of(trace));
            assertTrue(html.contains("<h2>Device memory over time</h2>"));
            assertTrue(html.contains("<svg id=\"memory\""));
            assertTrue(html.contains("peak 44.00 MiB"), html);

            TraceFile plain = TraceFile.read(without);
            assertEquals(0, plain.memory().events());
            assertFalse(HtmlReport.render("without", plain, KeyAverages.of(plain)).contains("Device memory"));
        }
    }

    @Test
    void aLongSeriesStaysBoundedAndKeepsItsPeak() {
        MemoryTimeline timeline = new MemoryTimeline();
        for (int i = 0; i < 1_000_000; i++) {
            timeline.add("device 0", i, i == 777_777 ? 1L << 40 : i % 1000);
        }
        MemoryTimeline.Series s = timeline.devices().get("device 0");
        assertTrue(s.size <= MemoryTimeline.MAX_POINTS, "held " + s.size);
        long max = 0;
        for (int i = 0; i < s.size; i++) {
            max = Math.max(max, s.total[i]);
        }
        assertEquals(1L << 40, max, "the peak survives the merging");
        assertEquals(1_000_000, timeline.events());
    }
}
