package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;

/**
 * CUPTI's unified-memory records made byte by byte at {@code CUpti_ActivityUnifiedMemoryCounter3}'s
 * offsets, for the counters the H200 capture does not hold (DtoD, thrashing, throttling, remote map),
 * the device each is drawn on, and what is invalid; the CUPTI 12.1 row does not know the kind.
 */
class CuptiUnifiedMemoryRecordsTest {
    private static final long T0 = 1_796_202_935_500_000_000L;

    /** One record: counterKind, value, start, end, address, srcId, dstId, flags. */
    private static void record(ByteBuffer b, int counter, long value, long start, long end, long address, int src, int dst, int flags) {
        int at = b.position();
        b.putInt(at, CuptiActivityKind.UNIFIED_MEMORY_COUNTER).putInt(at + 4, counter).putLong(at + 8, value)
                .putLong(at + 16, start).putLong(at + 24, end).putLong(at + 32, address).putInt(at + 40, src)
                .putInt(at + 44, dst).putInt(at + 48, 0).putInt(at + 52, 4242).putInt(at + 56, flags).putInt(at + 60, 0);
        for (int i = 0; i < 5; i++) {
            b.putLong(at + 64 + 8 * i, 0);
        }
        b.position(at + 104);
    }

    private static ByteBuffer records() {
        ByteBuffer b = ByteBuffer.allocate(104 * 6).order(ByteOrder.LITTLE_ENDIAN);
        record(b, 8, 2 << 20, T0, T0 + 5_000, 0x7f0000200000L, 1, 0, 4); // DtoD from device 1, eviction
        record(b, 5, 1 << 16, T0 + 10_000, 0, 0x7f0000000000L, 0b110, 0, 0); // thrashing between devices 1 and 2
        record(b, 6, 0, T0 + 20_000, T0 + 21_500, 0x7f0000010000L, 1, 0, 0); // throttling on device 1
        record(b, 7, 1 << 12, T0 + 30_000, 0, 0x7f0000020000L, 0, 1, 3); // remote map to device 1, policy
        record(b, 9, 1, T0 + 40_000, T0 + 41_000, 0, 0, 0, 0); // no such counter
        record(b, 1, -1L, T0 + 50_000, T0 + 51_000, 0, 0, 0, 1); // bytes past 2^63
        return b.flip();
    }

    @Test
    void eachCounterIsDrawnOnItsDevicesRowWithItsArgs() throws IOException, InterruptedException {
        ByteBuffer buffer = records();
        byte[] magic = "FLTRBUF1".getBytes(StandardCharsets.US_ASCII);
        ByteBuffer capture = ByteBuffer.allocate(magic.length + 16 + buffer.remaining()).order(ByteOrder.LITTLE_ENDIAN);
        capture.put(magic).putInt(1).putInt(0).putLong(buffer.remaining()).put(buffer).flip();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CaptureReplay.Result result = CaptureReplay.run(CaptureReplay.Request.of(capture, "um.fltrbuf").ringSize(1 << 8)
                .build(), out);
        JsonNode trace = TraceJson.MAPPER.readTree(out.toByteArray());
        long base = trace.get("baseTimeNanoseconds").asLong();
        assertEquals(T0 / 1_000_000_000L * 1_000_000_000L, base);
        List<String> events = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("unified_memory".equals(e.path("cat").asText())) {
                events.add(e.toString());
            }
        }
        long ts = (T0 - base) / 1000;
        assertEquals(List.of(
                "{\"ph\":\"X\",\"cat\":\"unified_memory\",\"name\":\"Unified Memory memcpy DtoD\",\"pid\":1,\"tid\":2147483646,"
                        + "\"ts\":" + ts + ".0,\"dur\":5.0,\"args\":{\"bytes\":2097152,\"address\":\"0x7f0000200000\","
                        + "\"migration cause\":\"eviction\",\"src id\":1,\"dst id\":0}}",
                "{\"ph\":\"i\",\"cat\":\"unified_memory\",\"s\":\"t\",\"name\":\"Unified Memory thrashing\",\"pid\":1,"
                        + "\"tid\":2147483646,\"ts\":" + (ts + 10) + ".0,\"args\":{\"bytes\":65536,\"address\":\"0x7f0000000000\","
                        + "\"devices\":6}}",
                "{\"ph\":\"X\",\"cat\":\"unified_memory\",\"name\":\"Unified Memory throttling\",\"pid\":1,\"tid\":2147483646,"
                        + "\"ts\":" + (ts + 20) + ".0,\"dur\":1.5,\"args\":{\"address\":\"0x7f0000010000\",\"src id\":1}}",
                "{\"ph\":\"i\",\"cat\":\"unified_memory\",\"s\":\"t\",\"name\":\"Unified Memory remote map\",\"pid\":1,"
                        + "\"tid\":2147483646,\"ts\":" + (ts + 30) + ".0,\"args\":{\"bytes\":4096,\"address\":\"0x7f0000020000\","
                        + "\"remote map cause\":\"policy\",\"src id\":0,\"dst id\":1}}"), events);
        JsonNode accounting = trace.get("flagtrace");
        assertEquals(2, accounting.get("invalid_records").asLong(), "counter kind 9 and bytes past 2^63");
        assertEquals(4, accounting.get("decoded").get("unified_memory").asLong());
        assertEquals("{\"events\":4,\"htod\":{\"transfers\":0,\"bytes\":0},\"dtoh\":{\"transfers\":0,\"bytes\":0},"
                + "\"dtod\":{\"transfers\":1,\"bytes\":2097152},\"cpu_page_faults\":0,\"gpu_page_fault_events\":0,"
                + "\"gpu_page_fault_groups\":0,\"thrashing\":1,\"throttling\":1,\"remote_maps\":1}",
                accounting.get("unified_memory").toString());
        assertTrue(result.accounting().lines().contains("unified memory (drawn on each device's Unified Memory row): DtoD 1 transfers,"
                + " 2097152 bytes; page faults: CPU 0, GPU 0 events (0 fault groups); thrashing 1, throttling 1, remote maps 1"),
                String.join("\n", result.accounting().lines()));
        assertTrue(accounting.get("notes").toString().contains("unified memory record with counter kind 9"), accounting.toString());
    }

    @Test
    void cupti12RowDoesNotKnowTheKindAndEndsTheWalk() {
        ByteBuffer buffer = records();
        DecodeStats stats = new DecodeStats();
        new CuptiBufferDecoder(KernelNames.NONE, new NameTable(), List.of(), CuptiRecordLayout.CUPTI_12_1,
                CuptiBufferDecoder.cudaApiNames()).decode(buffer, new RecordSink() {
                    @Override
                    public <A> void publish(com.lmax.disruptor.EventTranslatorOneArg<TraceRecord, A> translator, A source) {
                        throw new AssertionError("nothing decodes");
                    }
                }, stats);
        assertEquals(104 * 6, stats.undecodableBytes());
        assertEquals(104, CuptiRecordLayout.CUPTI_13_0.recordSize(CuptiActivityKind.UNIFIED_MEMORY_COUNTER));
        assertEquals(-1, CuptiRecordLayout.CUPTI_11_1.recordSize(CuptiActivityKind.UNIFIED_MEMORY_COUNTER));
    }
}
