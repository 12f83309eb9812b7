package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.flagos.trace.model.StringIds;
import org.flagos.trace.testing.HtmlPages;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * The stream strips at a scale that shows the work: long stretches where no stream ran anything are
 * cut out, never any device work, and every busy nanosecond is in a shown slice.
 */
class DeviceStreamsTest {
    @TempDir
    Path dir;

    private static final Set<String> DEVICE = Set.of("kernel", "gpu_memcpy", "gpu_memset");

    /** The device events of a trace JSON as {start, end} ns, from its µs. */
    private static List<double[]> deviceWork(JsonNode trace) {
        List<double[]> out = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("X".equals(e.path("ph").asText()) && DEVICE.contains(e.path("cat").asText())) {
                double ts = e.get("ts").asDouble() * 1000;
                out.add(new double[] {ts, ts + e.get("dur").asDouble() * 1000});
            }
        }
        return out;
    }

    private static int nonEmpty(DeviceStreams.Stream s) {
        int n = 0;
        for (double b : s.busyNs()) {
            n += b > 0 ? 1 : 0;
        }
        return n;
    }

    @Test
    void theBundledCapturesIdleStretchIsCutAndItsWorkSpreadsOverTheStrip() throws Exception {
        TraceJson.Replayed replayed = TraceJson.replay("h200-app");
        Path trace = Files.write(dir.resolve("t.json"), replayed.bytes());
        DeviceStreams streams = TraceFile.read(trace).streams();
        // 32 device events: two copies at the start, 88.8 ms of nothing, then 1.6 ms of work
        assertEquals(1, streams.cuts().size(), streams.cuts().toString());
        DeviceStreams.Cut cut = streams.cuts().get(0);
        assertTrue(cut.lengthNs() > 88e6 && cut.lengthNs() < 88.8e6, "the 88.8 ms gap, to a fine slice: " + cut.lengthNs());
        double origin = streams.startNs();
        for (double[] w : deviceWork(replayed.trace())) { // the trace's µs and the reader's ns meet within rounding
            assertTrue(w[1] - origin <= cut.startNs() - origin + 1 || w[0] - origin >= cut.endNs() - origin - 1,
                    "no device work in the cut: " + w[0] + ".." + w[1]);
        }
        assertEquals(streams.endNs() - streams.startNs() - cut.lengthNs(), streams.shownNs(), 1e-3);
        DeviceStreams.Stream s = streams.streams().get(0);
        double sum = 0;
        for (double b : s.busyNs()) {
            sum += b;
        }
        assertEquals(s.totalNs(), sum, 1e-6 * s.totalNs(), "every busy ns in a shown slice");
        assertTrue(nonEmpty(s) >= 40, "the work spreads over the strip (4 slices of 120 before the cut): " + nonEmpty(s));
    }

    @Test
    void thePageMarksTheCutWithItsLength() throws Exception {
        Path trace = Files.write(dir.resolve("t.json"), TraceJson.replay("h200-app").bytes());
        TraceFile file = TraceFile.read(trace);
        Document doc = HtmlPages.parse(HtmlReport.render("h200-app", file, KeyAverages.of(file)));
        Element svg = HtmlPages.byId(doc, "svg", "streams");
        String text = svg.getTextContent();
        DeviceStreams.Cut cut = file.streams().cuts().get(0);
        assertTrue(text.contains(KeyAveragesTable.time(cut.lengthNs() / 1000.0) + " idle"), text);
        int dashed = 0;
        for (int i = 0; i < svg.getElementsByTagName("line").getLength(); i++) {
            dashed += ((Element) svg.getElementsByTagName("line").item(i)).hasAttribute("stroke-dasharray") ? 1 : 0;
        }
        assertEquals(1, dashed, "one marker a cut");
        Element caption = (Element) svg.getPreviousSibling().getPreviousSibling();
        assertTrue(caption.getTextContent().contains("1 idle stretch with no work on any stream"), caption.getTextContent());
    }

    private static DeviceStreams build(long lo, long hi, long[][] events) {
        DeviceStreams.Builder b = new DeviceStreams.Builder(lo, hi);
        for (long[] e : events) {
            b.scan(e[0], e[1]);
        }
        b.cutIdle();
        for (long[] e : events) {
            b.add(0, e[0], e[1]);
        }
        StringIds rows = new StringIds();
        rows.id("0\u00007");
        return b.build(rows);
    }

    @Test
    void anIdleStretchIsCutOnlyWhenLongerThanAllTheTimeLeftShown() {
        // 0-10 busy, idle to 1000, 1000-1010 busy: 980 idle against 20 shown: cut
        DeviceStreams far = build(0, 1_010_000, new long[][] {{0, 10_000}, {1_000_000, 10_000}});
        assertEquals(1, far.cuts().size());
        assertEquals(20_000, far.shownNs(), 1_010_000.0 / DeviceStreams.FINE * 2);
        // 0-600 busy, idle to 1000, 1000-1010: 400 idle against 610 shown: kept
        DeviceStreams near = build(0, 1_010_000, new long[][] {{0, 600_000}, {1_000_000, 10_000}});
        assertEquals(0, near.cuts().size());
        assertEquals(1_010_000, near.shownNs(), 1e-6);
        // busy all through: nothing to cut
        DeviceStreams full = build(0, 1_000_000, new long[][] {{0, 1_000_000}});
        assertEquals(0, full.cuts().size());
        for (double b : full.streams().get(0).busyNs()) {
            assertEquals(full.binNs(), b, 1e-6, "every slice full");
        }
    }

    @Test
    void atMostMaxCutsAreMadeTheLongestFirst() {
        // 9 events of 1 us with gaps of 4, 16, 64, ... 65536 ms: each gap longer than all shorter ones together
        long[][] events = new long[9][];
        long at = 0;
        for (int i = 0; i < events.length; i++) {
            events[i] = new long[] {at, 1_000};
            at += (1L << (2 * (i + 1))) * 1_000_000L;
        }
        DeviceStreams s = build(0, events[8][0] + 1_000, events);
        assertEquals(DeviceStreams.MAX_CUTS, s.cuts().size(), "8 gaps qualify, " + DeviceStreams.MAX_CUTS + " are cut");
        double shortestCut = s.cuts().stream().mapToDouble(DeviceStreams.Cut::lengthNs).min().orElseThrow();
        assertTrue(shortestCut > 40e6 && shortestCut <= 64e6, "the longest gaps were cut (64 ms the shortest): " + s.cuts());
        double sum = 0;
        for (double b : s.streams().get(0).busyNs()) {
            sum += b;
        }
        assertEquals(9_000, sum, 1e-6, "every event's time in the shown slices");
    }
}
