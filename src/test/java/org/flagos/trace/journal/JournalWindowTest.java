package org.flagos.trace.journal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Window selection on a journal of a real capture: nothing outside the window, everything inside. */
class JournalWindowTest {
    private static final String CAPTURE = "h200-mt4";

    @TempDir
    static Path tmp;
    static Path dir;
    static JsonNode full;
    static JournalFacts facts;

    @BeforeAll
    static void journal() {
        dir = tmp.resolve("journal");
        JournalFixtures.journal(CAPTURE, dir);
        JournalFixtures.Export all = JournalFixtures.export(dir, JournalWindow.ALL);
        full = all.trace();
        facts = all.result().facts();
    }

    @Test
    void aWindowKeepsExactlyTheEventsWhollyInsideIt() {
        long from = percentileStartNs(30);
        long to = percentileStartNs(60);

        JournalFixtures.Export windowed = JournalFixtures.export(dir, JournalWindow.of(Long.toString(from), Long.toString(to), null));

        assertEquals(from, windowed.result().windowStartNs());
        assertEquals(to, windowed.result().windowEndNs());
        List<String> inside = new ArrayList<>();
        int outside = 0;
        long base = full.get("baseTimeNanoseconds").asLong();
        assertEquals(base, windowed.trace().get("baseTimeNanoseconds").asLong());
        for (JsonNode e : records(full)) {
            if (base + startNs(e) >= from && base + endNs(e) <= to && endNs(e) <= to) {
                inside.add(key(e));
            } else {
                outside++;
            }
        }
        List<String> kept = new ArrayList<>();
        for (JsonNode e : records(windowed.trace())) {
            assertTrue(base + startNs(e) >= from && base + endNs(e) <= to, "outside the window: " + e);
            kept.add(key(e));
        }
        assertTrue(inside.size() > 100 && outside > 100, inside.size() + " inside, " + outside + " outside: not a real cut");
        Collections.sort(inside);
        Collections.sort(kept);
        assertEquals(inside, kept);
    }

    @Test
    void relativeTimesAndLastSelectTheSameAsEpochNs() {
        long fromUs = (percentileStartNs(20) - facts.startNs()) / 1_000;
        long toUs = (percentileStartNs(70) - facts.startNs()) / 1_000;
        long from = facts.startNs() + fromUs * 1_000;
        long to = facts.startNs() + toUs * 1_000;
        JournalFixtures.Export absolute = JournalFixtures.export(dir, JournalWindow.of(Long.toString(from), Long.toString(to), null));
        JournalFixtures.Export relative = JournalFixtures.export(dir, JournalWindow.of("+" + fromUs + "us", "+" + toUs + "us", null));
        assertTrue(absolute.result().replay().events() < full.get("traceEvents").size(), "a real cut");
        assertArrayEquals(absolute.bytes(), relative.bytes());

        JournalFixtures.Export last = JournalFixtures.export(dir, JournalWindow.of(null, null, "5ms"));
        assertEquals(facts.stopNs() - 5_000_000, last.result().windowStartNs());
        assertEquals(facts.stopNs(), last.result().windowEndNs());
    }

    @Test
    void malformedWindowsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> JournalWindow.of("yesterday", null, null));
        assertThrows(IllegalArgumentException.class, () -> JournalWindow.of(null, null, "30"));
        assertThrows(IllegalArgumentException.class, () -> JournalWindow.of("+1s", null, "30s"));
        assertEquals(30_000_000_000L, JournalWindow.duration("30s"));
        assertEquals(1_500_000L, JournalWindow.duration("1.5ms"));
        assertEquals(120_000_000_000L, JournalWindow.duration("2m"));
    }

    /** The start (epoch ns) of the record at {@code percent} of the full trace's records in time order. */
    private static long percentileStartNs(int percent) {
        long base = full.get("baseTimeNanoseconds").asLong();
        List<Long> starts = new ArrayList<>();
        for (JsonNode e : records(full)) {
            starts.add(base + startNs(e));
        }
        Collections.sort(starts);
        return starts.get(starts.size() * percent / 100);
    }

    /** The record events: every complete event but the trace's own span ("Trace"), which is the window itself. */
    private static List<JsonNode> records(JsonNode trace) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode e : JournalFixtures.complete(trace)) {
            // GPU annotations are drawn from the records kept: an op's span in a window covers only its
            // records inside it (GpuAnnotationSpansTest checks spans against the records of their trace)
            if (!"Trace".equals(e.path("cat").asText()) && !"gpu_user_annotation".equals(e.path("cat").asText())) {
                out.add(e);
            }
        }
        return out;
    }

    private static String key(JsonNode e) {
        return e.path("cat").asText() + "|" + e.path("name").asText() + "|" + e.path("ts").asText() + "|"
                + e.path("dur").asText() + "|" + e.path("pid").asText() + "|" + e.path("tid").asText();
    }

    private static long startNs(JsonNode e) {
        return ns(e.get("ts"));
    }

    private static long endNs(JsonNode e) {
        return ns(e.get("ts")) + ns(e.get("dur"));
    }

    private static long ns(JsonNode micros) {
        return new BigDecimal(micros.asText()).movePointRight(3).longValueExact();
    }
}
