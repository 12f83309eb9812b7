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

    /**
     * An id written as a string holding a number ({@code "correlation":"5"}, {@code "External id":"7"}, a flow's
     * {@code "id":"9"}) is that number to the trace reader (TraceEvent.wholeNumber), so a runtime call with
     * {@code "correlation":"5"} pairs with its kernel's {@code "correlation":5}. The merge renumbers it as it renumbers
     * the number, keeping it a string; it used to copy it as it was, so every rank's "5" met in the merged trace and
     * could meet a renumbered number (rank 1's 2 becomes 2 * 2 + 1 = 5). A string the reader reads as no number stays
     * in args, and becomes "slot:text" as a top-level id.
     */
    @Test
    void idsWrittenAsStringsAreRenumberedAsTheReaderReadsThem() throws Exception {
        String extra = "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":4242,\"tid\":1,\"ts\":20,\"dur\":1,"
                + "\"args\":{\"External id\":\"7\",\"correlation\":\"5\",\"note\":\"5\"}},\n"
                + "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":21,\"dur\":1,"
                + "\"args\":{\"External id\":7,\"correlation\":5,\"device\":0,\"stream\":7}},\n"
                + "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"pid\":4242,\"tid\":1,\"ts\":22,\"dur\":1,"
                + "\"args\":{\"correlation\":\"abc\"}},\n"
                + "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"str\",\"id\":\"9\",\"pid\":4242,\"tid\":1,\"ts\":20},\n"
                + "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"hex\",\"id\":\"0x9\",\"pid\":4242,\"tid\":1,\"ts\":20}";
        JsonNode merged = merge(List.of(MergeTraces.trace(dir, 0, extra, null), MergeTraces.trace(dir, 1, extra, null)), true);
        int seen = 0;
        for (JsonNode e : merged.get("traceEvents")) {
            long slot = e.path("pid").asLong() / 1000 - 1;
            JsonNode args = e.path("args");
            switch (e.path("name").asText()) {
                case "cudaLaunchKernel" -> {
                    assertTrue(args.get("correlation").isTextual() && args.get("External id").isTextual(), args.toString());
                    assertEquals(String.valueOf(5 * 2 + slot), args.get("correlation").asText(), "renumbered, still a string");
                    assertEquals(String.valueOf(7 * 2 + slot), args.get("External id").asText());
                    assertEquals("5", args.get("note").asText(), "no id: kept");
                    seen++;
                }
                case "k" -> {
                    assertEquals(5 * 2 + slot, args.get("correlation").asLong(), "the same number as its call's string");
                    assertEquals(7 * 2 + slot, args.get("External id").asLong());
                    seen++;
                }
                case "cudaMemcpyAsync" -> {
                    assertEquals("abc", args.get("correlation").asText(), "no number to the reader: no id, kept");
                    seen++;
                }
                case "str" -> {
                    assertEquals(String.valueOf(9 * 2 + slot), e.get("id").asText());
                    assertTrue(e.get("id").isTextual());
                    seen++;
                }
                case "hex" -> {
                    assertEquals(slot + ":0x9", e.get("id").asText());
                    seen++;
                }
                default -> { }
            }
        }
        assertEquals(10, seen, "five events of each rank");
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
