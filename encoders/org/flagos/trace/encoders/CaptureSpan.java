package org.flagos.trace.encoders;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;

/**
 * The events torch writes for the profiled region itself: the {@code Trace} span covering the
 * capture window, its row's sort index, and the iteration-start and window-end instants. Viewers
 * and tools that key on them (they look for "PyTorch Profiler") find the window.
 */
final class CaptureSpan {
    private static final long SPANS_SORT_INDEX = 536_870_912;
    private final EventBytes time = new EventBytes();

    /** Events {@link #write} adds to {@code traceEvents}. */
    static final int EVENTS = 4;

    /** Writes the span for {@code [startNs, endNs]}, times relative to {@code baseNs}: {@link #EVENTS} events. */
    void write(JsonGenerator g, long startNs, long endNs, long baseNs) throws IOException {
        long start = startNs - baseNs;
        g.writeStartObject();
        g.writeStringField("ph", "X");
        g.writeStringField("cat", "Trace");
        time(g, "ts", start);
        time(g, "dur", endNs - startNs);
        g.writeStringField("pid", "Spans");
        g.writeStringField("tid", "PyTorch Profiler");
        g.writeStringField("name", "PyTorch Profiler (0)");
        g.writeObjectFieldStart("args");
        g.writeNumberField("Op count", 0);
        g.writeEndObject();
        g.writeEndObject();

        g.writeStartObject();
        g.writeStringField("name", "process_sort_index");
        g.writeStringField("ph", "M");
        time(g, "ts", start);
        g.writeStringField("pid", "Spans");
        g.writeNumberField("tid", 0);
        g.writeObjectFieldStart("args");
        g.writeNumberField("sort_index", SPANS_SORT_INDEX);
        g.writeEndObject();
        g.writeEndObject();

        instant(g, "Iteration Start: PyTorch Profiler", "Traces", "Trace PyTorch Profiler", start);
        instant(g, "Record Window End", "", "", endNs - baseNs);
    }

    private void instant(JsonGenerator g, String name, String pid, String tid, long tsNs) throws IOException {
        g.writeStartObject();
        g.writeStringField("name", name);
        g.writeStringField("ph", "i");
        g.writeStringField("s", "g");
        g.writeStringField("pid", pid);
        g.writeStringField("tid", tid);
        time(g, "ts", tsNs);
        g.writeEndObject();
    }

    private void time(JsonGenerator g, String field, long nanos) throws IOException {
        g.writeFieldName(field);
        g.writeRawValue(time.reset().micros(nanos));
    }
}
