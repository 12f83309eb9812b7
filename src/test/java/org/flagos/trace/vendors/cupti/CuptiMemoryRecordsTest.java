package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.lmax.disruptor.EventTranslatorOneArg;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.MemoryKind;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;

/**
 * A real CUPTI 13.0 buffer recorded on the H200 (driver 580, CUDA 13.0) with MEMORY2 and RUNTIME
 * armed, by a C program that allocated and released device memory ({@code cudaMalloc} 1, 2, 3 MiB,
 * {@code cudaFree}), pinned host memory ({@code cudaMallocHost} 4 KiB) and pool memory
 * ({@code cudaMallocAsync} 5 MiB): {@code captures/memory/h200-memory2.buf}, beside the pointers and
 * sizes the program was given ({@code h200-memory2.expected.txt}). CUPTI wrote each memory record
 * just before its call's record. The decoded records match the program's pointers and sizes, which
 * checks the {@code CUpti_ActivityMemory4} offsets on real bytes.
 */
class CuptiMemoryRecordsTest {
    private static final Path DIR = Path.of("src/test/resources/captures/memory");
    private static final long THREAD = 2318426112L;

    private static byte[] buffer() throws IOException {
        return Files.readAllBytes(DIR.resolve("h200-memory2.buf"));
    }

    @Test
    void decodedRecordsAreWhatTheProgramAllocatedAndReleased() throws IOException {
        List<TraceRecord> records = new ArrayList<>();
        RecordSink sink = new RecordSink() {
            @Override
            public <A> void publish(EventTranslatorOneArg<TraceRecord, A> translator, A source) {
                TraceRecord r = new TraceRecord();
                translator.translateTo(r, 0, source);
                records.add(r);
            }
        };
        DecodeStats stats = new DecodeStats();
        new CuptiBufferDecoder(KernelNames.NONE, new NameTable(), List.of())
                .decode(ByteBuffer.wrap(buffer()).order(ByteOrder.LITTLE_ENDIAN), sink, stats);
        assertEquals(0, stats.undecodableBytes());
        assertEquals(0, stats.invalidRecords());
        List<TraceRecord> memory = records.stream().filter(r -> r.kind == EventKind.MEMORY).toList();
        List<String> lines = Files.readAllLines(DIR.resolve("h200-memory2.expected.txt"), StandardCharsets.UTF_8);
        assertEquals(lines.size(), memory.size());
        for (int i = 0; i < lines.size(); i++) {
            String[] f = lines.get(i).split(" "); // what alloc|free pointer bytes
            TraceRecord m = memory.get(i);
            assertEquals(Long.parseUnsignedLong(f[2].substring(2), 16), m.address, lines.get(i));
            assertEquals(Long.parseLong(f[3]), m.bytes, lines.get(i));
            assertEquals(f[1].equals("free"), m.memoryRelease, lines.get(i));
            assertEquals(f[0].equals("pinned") ? MemoryKind.PINNED : MemoryKind.DEVICE, m.memoryKind, lines.get(i));
            assertEquals(0, m.device);
            assertEquals(557, m.processId);
            assertEquals(m.startNs, m.endNs);
        }
        // each memory record correlates with the runtime call just after it in the buffer
        for (int i = 0; i + 1 < records.size(); i++) {
            if (records.get(i).kind == EventKind.MEMORY) {
                assertEquals(EventKind.RUNTIME, records.get(i + 1).kind);
                assertEquals(records.get(i).correlation(), records.get(i + 1).correlation());
                assertTrue(records.get(i + 1).startNs <= records.get(i).startNs
                        && records.get(i).startNs <= records.get(i + 1).endNs, "inside its call");
            }
        }
    }

    @Test
    void replayedTheyAreTorchsMemoryEventsOnTheCallingThread() throws IOException {
        byte[] payload = buffer();
        byte[] magic = "FLTRBUF1".getBytes(StandardCharsets.US_ASCII);
        ByteBuffer capture = ByteBuffer.allocate(magic.length + 16 + payload.length).order(ByteOrder.LITTLE_ENDIAN);
        capture.put(magic).putInt(1).putInt(0).putLong(payload.length).put(payload).flip();
        TraceJson.Replayed t = TraceJson.replay(CaptureReplay.Request.of(capture, "h200-memory2").ringSize(1 << 8)
                .build());
        List<JsonNode> memory = t.category("cpu_instant_event");
        assertEquals(10, memory.size());
        long peak = 0;
        for (JsonNode m : memory) {
            assertEquals(THREAD, m.get("tid").asLong());
            JsonNode a = m.get("args");
            if (a.get("Device Type").asInt() == 1) {
                assertEquals(0, a.get("Device Id").asInt());
                peak = Math.max(peak, a.get("Total Allocated").asLong());
            } else {
                assertEquals(-1, a.get("Device Id").asInt(), "pinned host memory is torch's CPU memory");
            }
        }
        JsonNode lastDevice = memory.get(memory.size() - 1).get("args");
        assertEquals(0, lastDevice.get("Total Allocated").asLong(), "everything allocated was released");
        assertEquals(10L << 20, peak, "1 + 2 + 3 - 1 + 5 MiB at the most");
        assertEquals(0, t.trace().get("flagtrace").get("memory").get("without_thread").asLong());
        assertEquals(0, t.trace().get("flagtrace").get("memory").get("releases_of_unseen_allocations").asLong());
    }

    @Test
    void nvtxRecordsAreReadAndCountedNotTheEndOfTheWalk() throws IOException {
        byte[] memory = buffer();
        ByteBuffer b = ByteBuffer.allocate(56 + 40 + memory.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, CuptiActivityKind.MARKER).putInt(56, CuptiActivityKind.MARKER_DATA);
        b.position(96);
        b.put(memory).flip();
        List<EventKind> kinds = new ArrayList<>();
        DecodeStats stats = new DecodeStats();
        new CuptiBufferDecoder(KernelNames.NONE, new NameTable(), List.of()).decode(b, new RecordSink() {
            @Override
            public <A> void publish(EventTranslatorOneArg<TraceRecord, A> translator, A source) {
                TraceRecord r = new TraceRecord();
                translator.translateTo(r, 0, source);
                kinds.add(r.kind);
            }
        }, stats);
        assertEquals(0, stats.undecodableBytes());
        assertEquals(10, kinds.stream().filter(k -> k == EventKind.MEMORY).count(), "the records after the marks decode");
        assertEquals(Map.of(), stats.skippedByVendorKind());
        assertEquals(1, stats.invalidRecords(), "a marker of no phase (flags 0) is invalid, counted");
        assertEquals(1, stats.annotationAttributesRead(), "MARKER_DATA read and counted");
    }
}
