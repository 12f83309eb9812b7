package org.flagos.trace.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import org.flagos.trace.testing.TraceJson;
import org.flagos.trace.tracefile.TraceFormatException;
import org.flagos.trace.tracefile.TraceSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One trace's events copied into a merge: pids per slot, ids per slot, times shifted exactly, each bound kept. */
class InputCopyTest {
    @TempDir
    Path dir;

    private JsonNode copy(InputCopy copy) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = TraceSource.JSON.createGenerator(out, JsonEncoding.UTF8)) {
            g.writeStartArray();
            copy.copy(g);
            g.writeEndArray();
        }
        return TraceJson.MAPPER.readTree(out.toByteArray());
    }

    @Test
    void renumbersPidsAndIdsAndShiftsTimes() throws Exception {
        TraceFacts f = TraceFacts.read(MergeTraces.trace(dir, 1, "", null));
        InputCopy copy = new InputCopy(f, 1, 3, 1_500, "rank 1");
        JsonNode events = copy(copy);
        JsonNode mm = events.get(0);
        assertEquals(2000, mm.get("pid").asLong(), "slot 1's first pid");
        assertEquals("12", mm.get("ts").asText(), "10.5 µs + 1,500 ns");
        assertEquals(3 * 3 + 1, mm.get("args").get("External id").asLong());
        JsonNode kernel = events.get(1);
        assertEquals(2001, kernel.get("pid").asLong());
        assertEquals(9 * 3 + 1, kernel.get("args").get("correlation").asLong());
        assertEquals(5, copy.events);
        assertTrue(copy.rows().get("0").device, "the kernel's process is a device's");
        JsonNode label = events.get(5);
        assertEquals("process_name", label.get("name").asText());
    }

    /** A shift that takes an event's time past ±2^62 ns is refused with the event's line. */
    @Test
    void aShiftPastTheBoundIsRefused() throws Exception {
        Path trace = MergeTraces.trace(dir, 0, "", null);
        TraceFacts f = TraceFacts.read(trace);
        InputCopy copy = new InputCopy(f, 0, 1, Long.MAX_VALUE - 5, "rank 0");
        TraceFormatException e = assertThrows(TraceFormatException.class, () -> copy(copy));
        assertEquals(trace + ": its event on line 3 falls beyond ±4611686018427387904 ns once on the reference's clock (its base"
                + " time or clock anchors are not a clock's)", e.getMessage());
    }
}
