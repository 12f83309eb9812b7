package org.flagos.trace.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import org.flagos.trace.testing.TraceJson;
import org.flagos.trace.tracefile.TraceFormatException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One trace's events copied into a merge: pids per slot, ids per slot, times shifted exactly, each bound kept; the
 * trace read once, its events kept in a scratch part that is deleted after.
 */
class InputCopyTest {
    @TempDir
    Path dir;

    private JsonNode copy(InputCopy copy, int slot, int inputs, long shiftNs, String label) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write('[');
        InputCopy.MergedEvents events = new InputCopy.MergedEvents(out);
        try {
            copy.copy(events, slot, inputs, shiftNs, label);
        } finally {
            copy.delete();
        }
        events.flush();
        out.write(']');
        return TraceJson.MAPPER.readTree(out.toByteArray());
    }

    @Test
    void renumbersPidsAndIdsAndShiftsTimes() throws Exception {
        InputCopy copy = InputCopy.read(MergeTraces.trace(dir, 1, "", null), dir, () -> false);
        JsonNode events = copy(copy, 1, 3, 1_500, "rank 1");
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
        try (var parts = java.nio.file.Files.list(dir)) {
            assertEquals(0, parts.filter(p -> p.getFileName().toString().endsWith(".part")).count(), "the part is deleted");
        }
    }

    /** A shift that takes an event's time past ±2^62 ns is refused with the event's line. */
    @Test
    void aShiftPastTheBoundIsRefused() throws Exception {
        Path trace = MergeTraces.trace(dir, 0, "", null);
        InputCopy copy = InputCopy.read(trace, dir, () -> false);
        TraceFormatException e = assertThrows(TraceFormatException.class, () -> copy(copy, 0, 1, Long.MAX_VALUE - 5, "rank 0"));
        assertEquals(trace + ": its event on line 3 falls beyond ±4611686018427387904 ns once on the reference's clock (its base"
                + " time or clock anchors are not a clock's)", e.getMessage());
    }

    /**
     * The ids at the top level of {@code args} are renumbered wherever they sit: after an object or an array in the same
     * args too (the merge before this kept those as they were, so two ranks' ids met in the merged trace); an id inside
     * a nested object is no id of the event's and stays. Both the bytes as read and the writer's form (an escape the
     * writer writes otherwise sends the event through it) are renumbered alike.
     */
    @Test
    void idsAfterANestedObjectInArgsAreRenumbered() throws Exception {
        String nested = "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":4242,\"tid\":1,\"ts\":20,\"dur\":1,"
                + "\"args\":{\"shape\":{\"a\":[1,{\"correlation\":2}]},\"External id\":13,\"list\":[4,[5]],\"correlation\":6,"
                + "\"inner\":{\"External id\":7},\"external id\":8}}";
        Path trace = MergeTraces.trace(dir, 1, String.format(nested, "as read") + ",\n" + String.format(nested, "a\\/b"), null);
        InputCopy copy = InputCopy.read(trace, dir, () -> false);
        JsonNode events = copy(copy, 1, 3, 0, "rank 1");
        for (int i = 5; i <= 6; i++) {
            JsonNode args = events.get(i).get("args");
            assertEquals(13 * 3 + 1, args.get("External id").asLong(), args.toString());
            assertEquals(6 * 3 + 1, args.get("correlation").asLong(), args.toString());
            assertEquals(2, args.get("shape").get("a").get(1).get("correlation").asLong(), "not the event's: kept");
            assertEquals(7, args.get("inner").get("External id").asLong(), "not the event's: kept");
            assertEquals("[4,[5]]", args.get("list").toString());
            assertEquals(8 * 3 + 1, args.get("external id").asLong(), "torch 1.8-1.9's name of the External id, as the reader reads it");
        }
        assertEquals("a/b", events.get(6).get("name").asText());
    }

    /**
     * The fast path copies a plain trace's events from the trace itself: a trace changed between the read and the copy is
     * refused, not copied as it is now.
     */
    @Test
    void aTraceChangedBeforeTheCopyIsRefused() throws Exception {
        Path trace = MergeTraces.trace(dir, 1, "", null);
        InputCopy copy = InputCopy.read(trace, dir, () -> false);
        assertEquals(trace, copy.source, "a plain trace of the common form: its events copied from it");
        java.nio.file.Files.writeString(trace, " ", java.nio.file.StandardOpenOption.APPEND);
        TraceFormatException e = assertThrows(TraceFormatException.class, () -> copy(copy, 1, 3, 0, "rank 1"));
        assertEquals(trace + " changed while it was being merged (its events are copied from it); merge it again", e.getMessage());
    }
}
