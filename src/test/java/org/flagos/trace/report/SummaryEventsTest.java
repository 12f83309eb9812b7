package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import org.flagos.trace.tracefile.TraceReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The events a chunk keeps ({@link SummaryEvents}) are handed on as the walk hands them on: complete events and
 * {@code [memory]} instants, their fields as read, in order, from any point of the chunk.
 */
class SummaryEventsTest {
    @TempDir
    Path dir;

    @Test
    void keptEventsAreHandedOnAsTheWalkHandsThemOnFromAnyPoint() throws Exception {
        StringBuilder s = new StringBuilder("{\"traceEvents\":[");
        for (int i = 0; i < 3000; i++) { // past the columns' first size; a [memory] instant every 7th, a flow every 5th
            s.append(i == 0 ? "" : ",");
            if (i % 7 == 3) {
                s.append("{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":").append(1000 + i % 3).append(",\"ts\":").append(i)
                        .append(",\"args\":{\"Total Allocated\":").append(i * 10).append(",\"Device Type\":1,\"Device Id\":").append(i % 2)
                        .append("}}");
            } else if (i % 5 == 0) {
                s.append("{\"ph\":\"s\",\"id\":").append(i).append(",\"pid\":1,\"tid\":1,\"ts\":").append(i).append("}");
            } else {
                s.append("{\"ph\":\"X\",\"cat\":\"").append(i % 2 == 0 ? "kernel" : "cpu_op").append("\",\"name\":\"n").append(i % 4)
                        .append("\",\"pid\":\"p").append(i % 2).append("\",\"tid\":").append(i % 3).append(",\"ts\":").append(i)
                        .append(i % 11 == 0 ? ",\"dur\":-1" : ",\"dur\":2.5").append(",\"args\":{\"External id\":").append(i)
                        .append(",\"In msg nelems\":").append(i).append(",\"dtype\":\"Float\"}}");
            }
        }
        Path p = Files.writeString(dir.resolve("t.json"), s.append("]}"));
        ChunkedTraceReadTest.Calls walk = new ChunkedTraceReadTest.Calls();
        SummaryEvents kept = new SummaryEvents();
        TraceReader.read(p, "x", TraceReader.Options.FIELDS, e -> {
            SummaryEvents.handOn(e, walk);
            kept.add(e);
        });
        assertEquals(3000 - 600 + 86, kept.size(), "600 flows left out but the 86 of them made [memory] instants");
        assertEquals(walk.calls.size(), kept.size());
        assertEquals(429, kept.memories(), "i = 3 mod 7 below 3000");
        ChunkedTraceReadTest.Calls all = new ChunkedTraceReadTest.Calls();
        kept.replay(0, kept.size(), 0, all);
        assertEquals(walk.calls, all.calls);
        // from a point inside: the memory instants before it counted as ChunkedTraceRead counts them
        int from = 1234;
        int memoriesBeforeFrom = (int) walk.calls.subList(0, from).stream().filter(c -> c.startsWith("M|")).count();
        ChunkedTraceReadTest.Calls rest = new ChunkedTraceReadTest.Calls();
        kept.replay(from, kept.size(), memoriesBeforeFrom, rest);
        assertEquals(walk.calls.subList(from, walk.calls.size()), rest.calls);
    }
}
