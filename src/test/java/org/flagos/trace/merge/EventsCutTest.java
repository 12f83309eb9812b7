package org.flagos.trace.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The events array taken out of a trace's bytes: the rest passed on as it was, each event handed with its line and offset. */
class EventsCutTest {
    private static String cut(String doc, List<String> seen) throws Exception {
        EventsCut cut = new EventsCut(new ByteArrayInputStream(doc.getBytes(StandardCharsets.UTF_8)),
                (s, line, offset) -> seen.add(s.ph + " " + line + " " + offset));
        String rest = new String(cut.readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(cut.cut());
        return rest;
    }

    @Test
    void theTopLevelEventsArrayIsTakenOutEachEventWithItsLineAndOffset() throws Exception {
        String doc = "{\"a\":\"\\\"traceEvents\\\":[\",\"x\":{\"traceEvents\":[1]},\"traceEvents\" : [\n{\"ph\":\"X\"},\r\n {\"ph\":\"B\"}\n],"
                + "\"b\":[\"traceEvents\"]}";
        List<String> seen = new ArrayList<>();
        assertEquals("{\"a\":\"\\\"traceEvents\\\":[\",\"x\":{\"traceEvents\":[1]},\"traceEvents\" : [],\"b\":[\"traceEvents\"]}",
                cut(doc, seen));
        assertEquals(List.of("X 2 " + doc.indexOf("{\"ph\":\"X\""), "B 3 " + doc.indexOf("{\"ph\":\"B\"")), seen);
    }

    /** Events past the buffer's first fill (1 MiB): kept whole across refills, their offsets the stream's. */
    @Test
    void eventsAcrossRefills() throws Exception {
        StringBuilder doc = new StringBuilder("{\"traceEvents\":[");
        for (int i = 0; i < 60_000; i++) {
            doc.append(i == 0 ? "" : ",").append("{\"ph\":\"X\",\"name\":\"event number ").append(i).append("\"}");
        }
        doc.append("]}");
        List<String> seen = new ArrayList<>();
        assertEquals("{\"traceEvents\":[]}", cut(doc.toString(), seen));
        assertEquals(60_000, seen.size());
        assertEquals("X 1 " + doc.lastIndexOf("{\"ph\""), seen.get(seen.size() - 1));
    }

    @Test
    void whatItCannotFollowIsTheReaders() {
        for (String doc : List.of("[{\"ph\":\"X\"}]", "\ufeff{\"traceEvents\":[]}", "{\"traceEvents\":[{\"ph\":\"X\"},]}",
                "{\"traceEvents\":[],\"traceEvents\":[]}", "{\"traceEvents\":[{\"ph\":\"X\"}")) {
            assertThrows(EventScan.Unusual.class, () -> cut(doc, new ArrayList<>()), doc);
        }
    }
}
