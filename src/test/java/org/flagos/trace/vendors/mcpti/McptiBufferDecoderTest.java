package org.flagos.trace.vendors.mcpti;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.FltrbufFrames;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordLimits;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.CollectingSink;
import org.flagos.trace.testing.CuptiRecords;
import org.flagos.trace.vendors.cupti.CuptiActivityKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * MCPTI's own scan: the capture flagtrace recorded over the fake MCPTI (with its junk quirk) decodes
 * around the junk with every API id named from its name table; and the scan's rules on records cut at each boundary, stray bytes,
 * kinds CUPTI knows but MCPTI never writes, impossible times and external kinds (resynchronized over,
 * counted, in its wording), the day-long limit, and API ids the names lack (noted once each).
 */
class McptiBufferDecoderTest {
    private static final Path CAPTURE = Captures.dir().resolve("fake/fake-mcpti.fltrbuf");

    private static McptiBufferDecoder scanner(McptiApiNames names) {
        return new McptiBufferDecoder(handle -> null, new NameTable(), List.of(), names);
    }

    private static McptiBufferDecoder scanner() {
        return scanner(new McptiApiNames(handle -> null));
    }

    private static ByteBuffer wrap(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** {@code records} with {@code tail} appended. */
    private static ByteBuffer withTail(CuptiRecords records, byte[] tail) {
        byte[] head = records.bytes();
        byte[] all = Arrays.copyOf(head, head.length + tail.length);
        System.arraycopy(tail, 0, all, head.length, tail.length);
        return wrap(all);
    }

    @Test
    void theRecordedFakeCaptureDecodesAroundItsJunkWithEveryApiIdNamed() {
        KernelNameFile names = KernelNameFile.read(Captures.dir().resolve("fake/fake-mcpti.names.tsv"));
        McptiBufferDecoder decoder = McptiBufferDecoder.forCapture(names, new NameTable(), List.of(), DeviceClockMapping.IDENTITY);
        DecodeStats stats = new DecodeStats();
        CollectingSink sink = new CollectingSink();
        FltrbufFrames frames = new FltrbufFrames(CaptureBytes.load(CAPTURE), "fake-mcpti");
        int buffers = 0;
        while (frames.next()) {
            assertEquals(6, frames.vendor(), "MCPTI's vendor number");
            decoder.decode(frames.payload(), sink, stats);
            buffers++;
        }
        assertTrue(buffers > 0);
        // recorded with the fake's junk quirk on: 16 bytes of 'z' between records, 15 times
        assertEquals(15, decoder.resyncs(), stats.problems());
        assertEquals(240, decoder.resyncedBytes());
        assertEquals(240, stats.undecodableBytes());
        for (String run : stats.problems().replace(" (+5 more)", "").split("; ")) {
            assertTrue(run.matches("MCPTI scan resynchronized over 16 bytes at offset \\d+ \\(first candidate: unknown MCPTI"
                    + " activity kind or malformed record of kind 2054847098\\)"), run);
        }
        assertEquals(0, stats.invalidRecords(), stats.problems());
        assertTrue(stats.published(EventKind.KERNEL) > 0 && stats.published(EventKind.RUNTIME) > 0 && stats.bindings() > 0);
        assertArrayEquals(new long[0], decoder.unnamedSeen(), "every API id the live session met is in the name table");
        for (TraceRecord r : sink.records) {
            if (r.kind == EventKind.RUNTIME) {
                String saved = names.lookup(0xFA00_0005_0000_0000L | r.cbid);
                assertTrue(saved != null, "cbid " + r.cbid + " saved");
                assertEquals(saved, decoder.apiNames().name(EventKind.RUNTIME, r.cbid));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 4, 7})
    void strayBytesAtTheEndAreCountedAfterTheWholeRecords(int stray) {
        DecodeStats stats = new DecodeStats();
        CollectingSink sink = new CollectingSink();
        scanner().decode(withTail(new CuptiRecords().runtime(1, 10, 20, 1, 2, 1), new byte[stray]), sink, stats);
        assertEquals(1, sink.records.size());
        assertEquals(stray, stats.undecodableBytes());
        assertEquals("MCPTI buffer ends with " + stray + " stray bytes at offset 40", stats.problems());
    }

    @ParameterizedTest
    @ValueSource(ints = {8, 16, 32})
    void aKnownRecordCutShortEndsTheScanUnread(int kept) {
        byte[] second = Arrays.copyOf(new CuptiRecords().runtime(2, 30, 40, 1, 2, 2).bytes(), kept);
        DecodeStats stats = new DecodeStats();
        CollectingSink sink = new CollectingSink();
        McptiBufferDecoder scanner = scanner();
        scanner.decode(withTail(new CuptiRecords().runtime(1, 10, 20, 1, 2, 1), second), sink, stats);
        assertEquals(1, sink.records.size());
        assertEquals(kept, stats.undecodableBytes());
        assertEquals("MCPTI record of kind 5 at offset 40 needs 40 bytes, buffer has " + kept, stats.problems());
        assertEquals(0, scanner.resyncs(), "a cut record is not resynchronized into");
    }

    @Test
    void aKindMcptiNeverWritesIsResynchronizedOverThoughCuptiKnowsItsSize() {
        // CUPTI 12.1's Synchronization (40 bytes): sized by the row, never written by MCPTI
        CuptiRecords records = new CuptiRecords().sync(3, 100, 110, 77, 9, 300, CuptiRecords.INVALID)
                .runtime(1, 10, 20, 1, 2, 1);
        byte[] bytes = records.bytes();
        byte[] trimmed = new byte[40 + 40];
        System.arraycopy(bytes, 0, trimmed, 0, 40); // the sync's first 40 bytes (12.1's struct)
        System.arraycopy(bytes, 56, trimmed, 40, 40);
        McptiBufferDecoder scanner = scanner();
        DecodeStats stats = new DecodeStats();
        CollectingSink sink = new CollectingSink();
        scanner.decode(wrap(trimmed), sink, stats);
        assertEquals(1, sink.records.size());
        assertEquals(EventKind.RUNTIME, sink.records.get(0).kind);
        assertEquals(1, scanner.resyncs());
        assertEquals(40, scanner.resyncedBytes());
        assertEquals(40, stats.undecodableBytes());
        assertEquals("MCPTI scan resynchronized over 40 bytes at offset 0 (first candidate: unknown MCPTI activity kind"
                + " or malformed record of kind 38)", stats.problems());
    }

    @ParameterizedTest
    @ValueSource(ints = {6, -1})
    void anExternalKindPastCustom2IsMalformed(int externalKind) {
        byte[] binding = new CuptiRecords().binding(300, 9).bytes();
        wrap(binding).putInt(4, externalKind);
        McptiBufferDecoder scanner = scanner();
        DecodeStats stats = new DecodeStats();
        CollectingSink sink = new CollectingSink();
        scanner.decode(withTail(new CuptiRecords(), binding), sink, stats);
        assertEquals(0, sink.records.size());
        assertEquals(24, scanner.resyncedBytes(), "the run ends at the buffer's end and is counted");
        assertEquals(1, scanner.resyncs());
        byte[] custom2 = new CuptiRecords().binding(300, 9).bytes();
        wrap(custom2).putInt(4, 5);
        DecodeStats ok = new DecodeStats();
        scanner().decode(wrap(custom2), new CollectingSink(), ok);
        assertEquals(0, ok.undecodableBytes(), "CUSTOM2 is MCPTI's last kind: a record, skipped as another tool's");
        assertEquals(1, ok.skippedTotal());
    }

    @Test
    void timesThatCannotBeARecordAreResynchronizedOverTheDayLimitIncluded() {
        long day = RecordLimits.MAX_SPAN_NS;
        CuptiRecords records = new CuptiRecords()
                // pid 12345 and times whose low halves are no kind: the scan's 8-byte steps inside a
                // malformed record must not meet a known kind's header
                .runtime(1, 0, 2000, 12345, 2, 301) // start unknown but not end
                .runtime(1, 1000, 0, 12345, 2, 302) // end unknown but not start
                .runtime(1, 3000, 2000, 12345, 2, 303) // ends before it starts
                .runtime(1, 1000, 1000 + day + 1, 12345, 2, 304) // longer than a day
                .runtime(1, 1000, 1000 + day, 12345, 2, 305); // exactly a day: a record
        McptiBufferDecoder scanner = scanner();
        DecodeStats stats = new DecodeStats();
        CollectingSink sink = new CollectingSink();
        scanner.decode(wrap(records.bytes()), sink, stats);
        assertEquals(List.of(305L), sink.records.stream().map(TraceRecord::correlation).toList(), stats.problems());
        assertEquals(1, scanner.resyncs(), "one run over the four malformed records");
        assertEquals(160, scanner.resyncedBytes());
        assertEquals(0, scanner.timingUnavailable());
    }

    @Test
    void startAndEndZeroIsMcptisSentinelNotARun() {
        McptiBufferDecoder scanner = scanner();
        DecodeStats stats = new DecodeStats();
        CollectingSink sink = new CollectingSink();
        scanner.decode(wrap(new CuptiRecords().runtime(1, 0, 0, 1, 2, 1).runtime(1, 10, 20, 1, 2, 2).bytes()), sink, stats);
        assertEquals(1, scanner.timingUnavailable());
        assertEquals(0, scanner.resyncs());
        assertEquals(1, sink.records.size());
        assertEquals(0, stats.incompleteRecords());
    }

    @Test
    void apiIdsTheNamesLackAreNotedOnceEachPerDomain() {
        McptiApiNames names = new McptiApiNames(handle -> handle == McptiApiNames.handle(EventKind.RUNTIME, 23) ? "mcMalloc" : null);
        McptiBufferDecoder scanner = scanner(names);
        byte[] driver = new CuptiRecords().runtime(24, 50, 60, 1, 2, 5).bytes();
        wrap(driver).putInt(0, CuptiActivityKind.DRIVER);
        ByteBuffer b = withTail(new CuptiRecords().runtime(23, 10, 20, 1, 2, 1).runtime(24, 20, 30, 1, 2, 2)
                .runtime(24, 30, 40, 1, 2, 3).runtime(23, 40, 50, 1, 2, 4), driver);
        scanner.decode(b, new CollectingSink(), new DecodeStats());
        long[] unnamed = scanner.unnamedSeen();
        Arrays.sort(unnamed);
        long[] expected = {McptiApiNames.handle(EventKind.RUNTIME, 24), McptiApiNames.handle(EventKind.DRIVER, 24)};
        Arrays.sort(expected);
        assertArrayEquals(expected, unnamed);
    }
}
