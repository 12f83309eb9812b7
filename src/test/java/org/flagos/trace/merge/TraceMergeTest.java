package org.flagos.trace.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.flagos.trace.testing.TraceJson;
import org.flagos.trace.tracefile.TraceFormatException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The merged trace as a whole: it keeps each trace's devices (renumbered to their merged pids) and a
 * {@code flagtrace} block summing the traces' accounting, so it reads as flagtrace's own; its ids stay
 * paired; clocks past what a long holds are refused in words instead of wrapping.
 */
class TraceMergeTest {
    @TempDir
    Path dir;

    private JsonNode merge(List<Path> traces, boolean assumeAligned) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TraceMerge.run(traces, out, ClockChoice.AUTO, assumeAligned);
        return TraceJson.MAPPER.readTree(out.toByteArray());
    }

    @Test
    void keepsTheDevicesAndTheAccountingOfEveryRank() throws Exception {
        JsonNode merged = merge(List.of(MergeTraces.trace(dir, 1, "", null), MergeTraces.trace(dir, 0, "", null)), true);
        JsonNode devices = merged.get("deviceProperties");
        assertEquals(2, devices.size(), "merge used to write an empty deviceProperties");
        assertEquals("H200 of rank 0", devices.get(0).get("name").asText());
        assertEquals(1001, devices.get(0).get("id").asLong(), "rank 0's device 0 is pid 1001 in the merge");
        assertEquals(2001, devices.get(1).get("id").asLong());
        assertEquals(1, devices.get(1).get("totalGlobalMem").asLong());
        JsonNode block = merged.get("flagtrace");
        assertEquals(1 + 2, block.get("invalid_records").asLong(), "counts add up over ranks");
        assertEquals(5 + 5, block.get("events").asLong());
        assertEquals(List.of("rank 0: a note of rank 0", "rank 1: a note of rank 1"),
                List.of(block.get("notes").get(0).asText(), block.get("notes").get(1).asText()));
        assertEquals(2, merged.get("flagtrace_merge").get("inputs").size());
    }

    @Test
    void idsStayPairedAndTimesMoveExactly() throws Exception {
        JsonNode merged = merge(List.of(MergeTraces.trace(dir, 0, "", null), MergeTraces.trace(dir, 1, "", null)), true);
        long flows = 0;
        for (JsonNode e : merged.get("traceEvents")) {
            if (e.path("cat").asText().equals("ac2g")) {
                flows++;
                long slot = e.get("pid").asLong() / 1000 - 1;
                assertEquals(9 * 2 + slot, e.get("id").asLong());
            }
            if (e.path("name").asText().equals("aten::mm")) {
                assertEquals("10.5", e.get("ts").asText(), "one base, offset 0: the same time");
            }
        }
        assertEquals(4, flows);
    }

    @Test
    void anEventWithNoUsableTimeIsLeftOutAndCounted() throws Exception {
        Path odd = MergeTraces.trace(dir, 0, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"s\",\"pid\":4242,\"tid\":1,\"ts\":\"12\",\"dur\":1},\n"
                + "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"n\",\"pid\":4242,\"tid\":1,\"ts\":12,\"dur\":-1}", null);
        JsonNode merged = merge(List.of(odd), false);
        assertEquals(2, merged.get("flagtrace_merge").get("inputs").get(0).get("left_out_unusable_times").asLong());
        for (JsonNode e : merged.get("traceEvents")) {
            assertFalse(e.path("name").asText().equals("s") || e.path("name").asText().equals("n"), e.toString());
        }
    }

    /** Anchors far apart used to wrap every event's time (to -7.4e15 µs) or end in "long overflow". */
    @Test
    void clocksTooFarApartAreRefusedNotWrapped() throws Exception {
        Path a = MergeTraces.trace(dir, 0, "", 4_611_686_018_427_387_000L);
        Path b = Files.writeString(dir.resolve("far.json"), Files.readString(MergeTraces.trace(dir, 1, "", -4_611_686_018_427_387_000L)));
        TraceFormatException e = assertThrows(TraceFormatException.class, () -> merge(List.of(a, b), false));
        assertTrue(e.getMessage().startsWith(b + ": its"), e.getMessage());
        assertFalse(e.getMessage().contains("overflow"), e.getMessage());
    }
}
