package org.flagos.trace.vendors.mcpti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.flagos.trace.model.ActivityBufferDecoder;
import org.flagos.trace.model.ActivityDecoderContract;
import org.flagos.trace.model.BufferTap;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.testing.CollectingSink;
import org.flagos.trace.testing.FakeBuffers;
import org.flagos.trace.vendors.cupti.CuptiActivityKind;
import org.flagos.trace.vendors.cupti.CuptiBufferDecoder;
import org.junit.jupiter.api.Test;

/**
 * The decoder contract on buffers the fake MCPTI wrote (quirks off: clean records), and the
 * scanner's own rules: resynchronization over malformed bytes, the "timing unavailable" skip.
 */
class McptiDecoderContractTest extends ActivityDecoderContract {
    private static final int[] KINDS = {CuptiActivityKind.CONCURRENT_KERNEL, CuptiActivityKind.MEMCPY, CuptiActivityKind.MEMSET,
            CuptiActivityKind.RUNTIME, CuptiActivityKind.EXTERNAL_CORRELATION};
    private static byte[] clean;

    private static McptiBufferDecoder scanner() {
        KernelNames live = CuptiBufferDecoder.liveKernelNames(BufferTap.NONE);
        return new McptiBufferDecoder(live, new NameTable(), List.of(), new McptiApiNames(handle -> null));
    }

    @Override
    protected ActivityBufferDecoder decoder() {
        return scanner();
    }

    @Override
    protected byte[] realBuffer() {
        if (clean == null) {
            clean = FakeBuffers.concatenated(FakeBuffers.collect("fake_mcpti", "mcpti", 0, KINDS,
                    "fakeLaunchKernel:0", "fakeMemcpy:64", "fakeMemset:32", "fakeLaunchKernel:1"));
        }
        return clean;
    }

    @Override
    protected int unknownKind() {
        return 0x4242;
    }

    /** 4 calls: 4 external correlations + 4 API records + 4 device records, 12.1 sizes. */
    @Test
    void theFakesRecordsHaveCupti121Sizes() {
        assertEquals(4 * 24 + 4 * 40 + 2 * 208 + 88 + 88, realBuffer().length);
    }

    @Test
    void malformedBytesAreSkippedEightAtATimeAndCounted() {
        byte[] real = realBuffer();
        // after the first external-correlation record (24 bytes): 16 bytes of an unknown kind, then 8
        // bytes that claim a known kind (RUNTIME) with impossible times cannot be a record either.
        int after = afterFirstExternalCorrelation(real);
        ByteBuffer b = ByteBuffer.allocate(real.length + 16 + 40).order(ByteOrder.LITTLE_ENDIAN);
        b.put(real, 0, after);
        b.putInt(0x7A7A7A7A).putInt(0x7A7A7A7A).putLong(0x7A7A7A7A7A7A7A7AL);
        b.putInt(CuptiActivityKind.RUNTIME).putInt(57).putLong(5).putLong(3).putLong(0).putLong(0); // end before start
        b.put(real, after, real.length - after).flip();
        McptiBufferDecoder scanner = scanner();
        DecodeStats stats = new DecodeStats();
        CollectingSink sink = new CollectingSink();
        scanner.decode(b, sink, stats);
        DecodeStats cleanStats = new DecodeStats();
        CollectingSink cleanSink = new CollectingSink();
        scanner().decode(FakeBuffers.wrap(real), cleanSink, cleanStats);
        assertEquals(cleanSink.records.size(), sink.records.size(), "every record around the junk kept");
        assertEquals(1, scanner.resyncs(), stats.problems());
        assertEquals(56, scanner.resyncedBytes());
        assertEquals(56, stats.undecodableBytes());
        assertTrue(stats.problems().contains("resynchronized over 56 bytes at offset " + after), stats.problems());
    }

    /** The offset just past the first external-correlation record (buffers arrive out of order). */
    private static int afterFirstExternalCorrelation(byte[] real) {
        ByteBuffer b = FakeBuffers.wrap(real);
        int pos = 0;
        while (b.getInt(pos) != CuptiActivityKind.EXTERNAL_CORRELATION) {
            pos += McptiBufferDecoder.LAYOUT.recordSize(b.getInt(pos));
        }
        return pos + 24;
    }

    @Test
    void startAndEndZeroIsTimingUnavailableSkippedAndCounted() {
        byte[] real = realBuffer().clone();
        ByteBuffer b = FakeBuffers.wrap(real);
        int pos = 0;
        int zeroed = 0;
        while (pos < real.length) {
            int kind = b.getInt(pos);
            int size = McptiBufferDecoder.LAYOUT.recordSize(kind);
            if (kind == CuptiActivityKind.MEMSET || kind == CuptiActivityKind.CONCURRENT_KERNEL) {
                b.putLong(pos + 16, 0).putLong(pos + 24, 0);
                zeroed++;
            }
            pos += size;
        }
        McptiBufferDecoder scanner = scanner();
        DecodeStats stats = new DecodeStats();
        scanner.decode(b, new CollectingSink(), stats);
        assertEquals(3, zeroed);
        assertEquals(3, scanner.timingUnavailable());
        assertEquals(0, stats.published(EventKind.KERNEL) + stats.published(EventKind.MEMSET));
        assertEquals(1, stats.published(EventKind.MEMCPY));
        assertEquals(0, stats.undecodableBytes());
        assertEquals(0, stats.incompleteRecords(), "not CUPTI's incomplete records: MCPTI's sentinel");
    }

    @Test
    void apiIdsTheNamesLackAreNotedOnceForTheFinalFlush() {
        McptiBufferDecoder scanner = scanner();
        scanner.decode(FakeBuffers.wrap(realBuffer()), new CollectingSink(), new DecodeStats());
        long[] unnamed = scanner.unnamedSeen();
        java.util.Arrays.sort(unnamed);
        long[] expected = {McptiApiNames.handle(EventKind.RUNTIME, 23), McptiApiNames.handle(EventKind.RUNTIME, 29),
                McptiApiNames.handle(EventKind.RUNTIME, 57)};
        java.util.Arrays.sort(expected);
        assertEquals(java.util.Arrays.toString(expected), java.util.Arrays.toString(unnamed));
    }
}
