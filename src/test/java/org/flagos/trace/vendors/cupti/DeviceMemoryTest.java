package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.flagos.trace.testing.TraceJson;
import org.flagos.trace.testing.TraceJson.Replayed;
import org.flagos.trace.vendors.cupti.MemoryCapture.Placement;
import org.junit.jupiter.api.Test;

/**
 * CUPTI MEMORY2 records to torch's {@code [memory]} instants, on the real h200-app capture with a
 * memory record beside each of its 9 {@code cudaMalloc} and 2 {@code cudaFree} calls
 * ({@link MemoryCapture}): a golden trace, then agitators (the call first, records shuffled and
 * reversed, a record whose call never comes, a duplicate, a release of memory the capture never saw
 * allocated).
 */
class DeviceMemoryTest {
    private static final String CAPTURE = "h200-app";
    private static final Path GOLDEN = Path.of("src/test/resources/captures/memory/h200-app.memory.expected.jsonl");

    private static List<JsonNode> memory(Replayed t) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode e : t.events()) {
            if ("[memory]".equals(e.path("name").asText())) {
                out.add(e);
            }
        }
        return out;
    }

    private static List<String> lines(List<JsonNode> events) {
        List<String> out = new ArrayList<>();
        events.forEach(e -> out.add(e.toString()));
        return out;
    }

    private static String withoutEvIdx(JsonNode e) {
        JsonNode copy = e.deepCopy();
        if (copy.path("args").has("Ev Idx")) {
            ((ObjectNode) copy.get("args")).remove("Ev Idx");
        }
        return copy.toString();
    }

    private static JsonNode counts(Replayed t) {
        return t.trace().get("flagtrace").get("memory");
    }

    @Test
    void goldenFromBuffersToTrace() throws IOException {
        Replayed t = TraceJson.replay(CAPTURE, MemoryCapture.injected(Placement.BEFORE_CALL));
        List<String> got = lines(memory(t));
        if (Boolean.getBoolean("flagtrace.writeGolden")) {
            Files.createDirectories(GOLDEN.getParent());
            Files.write(GOLDEN, got, StandardCharsets.UTF_8);
        }
        assertEquals(Files.readAllLines(GOLDEN, StandardCharsets.UTF_8), got);
        assertEquals(11, counts(t).get("events").asLong());
        assertEquals(0, counts(t).get("without_thread").asLong());
        assertEquals(0, counts(t).get("releases_of_unseen_allocations").asLong());
        assertEquals(11, t.trace().get("flagtrace").get("decoded").get("cpu_instant_event").asLong());
    }

    @Test
    void eachEventIsTorchsInstantOnItsCallsThreadInsideTheCall() {
        Replayed t = TraceJson.replay(CAPTURE, MemoryCapture.injected(Placement.BEFORE_CALL));
        List<JsonNode> calls = new ArrayList<>();
        for (JsonNode e : t.category("cuda_runtime")) {
            String name = e.get("name").asText();
            if (name.equals("cudaMalloc") || name.equals("cudaFree")) {
                calls.add(e);
            }
        }
        assertEquals(11, calls.size());
        long allocated = 0;
        for (JsonNode m : memory(t)) {
            assertEquals("i", m.get("ph").asText());
            assertEquals("t", m.get("s").asText());
            assertEquals("cpu_instant_event", m.get("cat").asText());
            List<String> keys = new ArrayList<>();
            m.get("args").fieldNames().forEachRemaining(keys::add);
            // torch 2.11's keys in its order (its trace of the same kinds on the H200, /work/h200-kinds)
            assertEquals(List.of("Total Reserved", "Total Allocated", "Bytes", "Device Id", "Device Type", "Addr", "finished",
                    "Ev Idx"), keys);
            assertEquals(1, m.get("args").get("Device Type").asInt());
            assertEquals(0, m.get("args").get("Device Id").asInt());
            JsonNode call = calls.stream()
                    .filter(c -> c.get("tid").equals(m.get("tid")) && c.get("pid").equals(m.get("pid"))
                            && c.get("ts").decimalValue().compareTo(m.get("ts").decimalValue()) <= 0
                            && c.get("ts").decimalValue().add(c.get("dur").decimalValue()).compareTo(m.get("ts").decimalValue()) >= 0)
                    .findFirst().orElseThrow(() -> new AssertionError("no cudaMalloc/cudaFree encloses " + m));
            long bytes = m.get("args").get("Bytes").asLong();
            assertEquals(call.get("name").asText().equals("cudaMalloc"), bytes > 0, m + " in " + call);
            allocated += bytes;
            assertEquals(allocated, m.get("args").get("Total Allocated").asLong(), "running total, in time order");
            assertEquals(allocated, m.get("args").get("Total Reserved").asLong());
        }
        // 9 allocations of 1..9 MiB, the first two released: 45 - 3 MiB left
        assertEquals(42L << 20, allocated);
    }

    @Test
    void evIdxNumbersOpRowsAndMemoryEventsTogether() {
        Replayed t = TraceJson.replay(CAPTURE, MemoryCapture.injected(Placement.BEFORE_CALL));
        java.util.Set<Long> seen = new java.util.HashSet<>();
        long n = 0;
        for (JsonNode e : t.events()) {
            if (e.path("args").has("Ev Idx")) {
                assertTrue(seen.add(e.get("args").get("Ev Idx").asLong()), "unique: " + e);
                n++;
            }
        }
        for (long i = 0; i < n; i++) {
            assertTrue(seen.contains(i), "Ev Idx 0.." + (n - 1) + " without a gap; missing " + i);
        }
    }

    @Test
    void everythingElseInTheTraceIsUnchanged() {
        Replayed plain = TraceJson.replay(CAPTURE);
        Replayed with = TraceJson.replay(CAPTURE, MemoryCapture.injected(Placement.BEFORE_CALL));
        List<String> a = new ArrayList<>();
        for (JsonNode e : plain.events()) {
            a.add(withoutEvIdx(e));
        }
        List<String> b = new ArrayList<>();
        for (JsonNode e : with.events()) {
            if (!"[memory]".equals(e.path("name").asText())) {
                b.add(withoutEvIdx(e));
            }
        }
        assertEquals(a, b, "the same events, but for op rows' Ev Idx (numbered with the memory events)");
        assertEquals(plain.result().summary().rows(), with.result().summary().rows());
    }

    @Test
    void theCallFirstGivesTheSameTrace() {
        assertEquals(lines(memory(TraceJson.replay(CAPTURE, MemoryCapture.injected(Placement.BEFORE_CALL)))),
                lines(memory(TraceJson.replay(CAPTURE, MemoryCapture.injected(Placement.AFTER_CALL)))));
    }

    @Test
    void shuffledAndReversedRecordsGiveTheSameEventsAndTotals() {
        List<String> inOrder = lines(memory(TraceJson.replay(CAPTURE, MemoryCapture.injected(Placement.BEFORE_CALL))));
        Replayed shuffled = TraceJson.replay(CAPTURE, MemoryCapture.injected(Placement.BEFORE_CALL,
                MemoryCapture.oneFramePerRecord(records -> {
                    List<org.flagos.trace.capture.CaptureReplay.Frame> copy = new ArrayList<>(records);
                    Collections.shuffle(copy, new Random(7));
                    return copy;
                })));
        assertTrue(shuffled.result().accounting().lateJoined() > 0, "the agitator really reordered");
        assertEquals(inOrder, lines(memory(shuffled)));
        Replayed reversed = TraceJson.replay(CAPTURE, MemoryCapture.injected(Placement.BEFORE_CALL,
                MemoryCapture.oneFramePerRecord(records -> {
                    List<org.flagos.trace.capture.CaptureReplay.Frame> copy = new ArrayList<>(records);
                    Collections.reverse(copy);
                    return copy;
                })));
        assertEquals(inOrder, lines(memory(reversed)));
    }

    @Test
    void aRecordWhoseCallNeverComesGoesOnThreadZeroAndIsCounted() {
        JsonNode first = memory(TraceJson.replay(CAPTURE, MemoryCapture.injected(Placement.BEFORE_CALL))).get(0);
        long ts = firstMallocStart() + 2;
        byte[] orphan = MemoryCapture.record(CuptiMemoryDecoder.ALLOCATION, 3, 4_000_000_000L, 0x7e00_0000_0000L, 4096,
                ts, first.get("pid").asInt(), 0, 0);
        Replayed t = TraceJson.replay(CAPTURE, MemoryCapture.injected(Placement.BEFORE_CALL, MemoryCapture.appended(orphan)));
        List<JsonNode> events = memory(t);
        assertEquals(12, events.size());
        JsonNode o = events.stream().filter(e -> e.get("args").get("Bytes").asLong() == 4096).findFirst().orElseThrow();
        assertEquals(0, o.get("tid").asLong());
        assertEquals(1, counts(t).get("without_thread").asLong());
        assertEquals((42L << 20) + 4096, events.get(events.size() - 1).get("args").get("Total Allocated").asLong());
    }

    @Test
    void aDuplicateRecordIsDrawnOnItsCallsThreadAndCounted() {
        Replayed once = TraceJson.replay(CAPTURE, MemoryCapture.injected(Placement.BEFORE_CALL));
        JsonNode first = memory(once).get(0);
        long corr = firstMallocCorrelation();
        byte[] again = MemoryCapture.record(CuptiMemoryDecoder.ALLOCATION, 3, corr, MemoryCapture.address(0),
                MemoryCapture.bytes(0), firstMallocStart() + 1, first.get("pid").asInt(), 0, 0);
        Replayed twice = TraceJson.replay(CAPTURE, MemoryCapture.injected(Placement.BEFORE_CALL, MemoryCapture.appended(again)));
        List<JsonNode> events = memory(twice);
        assertEquals(12, events.size());
        assertEquals(first.get("tid"), events.get(1).get("tid"), "the copy goes on the same call's thread");
        assertEquals(first.get("ts"), events.get(1).get("ts"));
        assertEquals(0, counts(twice).get("without_thread").asLong());
        assertEquals(12, counts(twice).get("events").asLong());
    }

    @Test
    void aReleaseOfMemoryAllocatedBeforeTheCaptureKeepsTheTotalAtZero() {
        long corr = firstMallocCorrelation();
        JsonNode first = memory(TraceJson.replay(CAPTURE, MemoryCapture.injected(Placement.BEFORE_CALL))).get(0);
        byte[] release = MemoryCapture.record(CuptiMemoryDecoder.RELEASE, 3, corr, 0x7d00_0000_0000L, 1L << 30,
                firstMallocStart(), first.get("pid").asInt(), 0, 0);
        Replayed t = TraceJson.replay(CAPTURE, MemoryCapture.injected(Placement.BEFORE_CALL, MemoryCapture.appended(release)));
        List<JsonNode> events = memory(t);
        assertEquals(-(1L << 30), events.get(0).get("args").get("Bytes").asLong(), "the earliest, drawn first");
        assertEquals(0, events.get(0).get("args").get("Total Allocated").asLong());
        assertEquals(1, counts(t).get("releases_of_unseen_allocations").asLong());
        for (JsonNode e : events) {
            assertTrue(e.get("args").get("Total Allocated").asLong() >= 0);
        }
    }

    @Test
    void anInvalidOperationIsCountedNotDrawn() {
        byte[] bad = MemoryCapture.record(0, 3, firstMallocCorrelation(), 0x1000, 64, firstMallocStart() + 1, 1, 0, 0);
        Replayed t = TraceJson.replay(CAPTURE, MemoryCapture.injected(Placement.BEFORE_CALL, MemoryCapture.appended(bad)));
        assertEquals(11, memory(t).size());
        assertEquals(1, t.result().accounting().decode().invalidRecords());
    }

    @Test
    void aCaptureWithoutMemoryRecordsSaysNothingOfThem() {
        ObjectNode block = (ObjectNode) TraceJson.replay(CAPTURE).trace().get("flagtrace");
        assertTrue(block.get("memory") == null);
        assertTrue(block.get("decoded").get("cpu_instant_event") == null);
    }

    private static long firstMallocStart() {
        return firstMalloc().getLong(8);
    }

    private static long firstMallocCorrelation() {
        return Integer.toUnsignedLong(firstMalloc().getInt(32));
    }

    /** The capture's first cudaMalloc record, as its bytes. */
    private static java.nio.ByteBuffer firstMalloc() {
        java.nio.ByteBuffer[] found = new java.nio.ByteBuffer[1];
        TraceJson.replay(CAPTURE, frames -> {
            for (org.flagos.trace.capture.CaptureReplay.Frame f : frames) {
                java.nio.ByteBuffer b = f.payload().duplicate().order(java.nio.ByteOrder.LITTLE_ENDIAN);
                for (int pos = b.position(); pos < b.limit() && found[0] == null; pos += CuptiActivityKind.recordSize(b.getInt(pos))) {
                    if (b.getInt(pos) == CuptiActivityKind.RUNTIME && b.getInt(pos + 4) == MemoryCapture.CUDA_MALLOC) {
                        found[0] = b.duplicate().position(pos).slice().order(java.nio.ByteOrder.LITTLE_ENDIAN);
                    }
                }
            }
            return frames;
        });
        return found[0];
    }
}
