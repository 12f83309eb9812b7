package org.flagos.trace.vendors.ppu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.flagos.trace.model.ActivityBufferDecoder;
import org.flagos.trace.model.ActivityDecoderContract;
import org.flagos.trace.model.BufferTap;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.testing.CollectingSink;
import org.flagos.trace.testing.FakeBuffers;
import org.flagos.trace.vendors.Vendors;
import org.flagos.trace.vendors.cupti.CuptiActivityKind;
import org.flagos.trace.vendors.cupti.CuptiBufferDecoder;
import org.junit.jupiter.api.Test;

/**
 * The decoder contract on buffers the fake PPU CUPTI wrote, through the decoder a PPU capture
 * replays with ({@code .fltrbuf} vendor 1 and a clock mapping), and PPU's own properties: many small
 * records walked by valid size, times mapped from the device clock, implausible ones counted.
 */
class PpuDecoderContractTest extends ActivityDecoderContract {
    private static final int[] KINDS = {CuptiActivityKind.CONCURRENT_KERNEL, CuptiActivityKind.MEMCPY, CuptiActivityKind.MEMSET, CuptiActivityKind.RUNTIME,
            CuptiActivityKind.DRIVER, CuptiActivityKind.EXTERNAL_CORRELATION};
    /** PPU's clock: 20 epoch ns per 21 device ns, device 0 at 2023-11-14. */
    private static final DeviceClockMapping CLOCK = new DeviceClockMapping(0, 1_700_000_000_000_000_000L, 20.0 / 21.0);
    private static byte[] real;

    private static ActivityBufferDecoder capture() {
        return Vendors.decoderFor(1).create(CuptiBufferDecoder.liveKernelNames(BufferTap.NONE), new NameTable(), List.of(), CLOCK);
    }

    @Override
    protected ActivityBufferDecoder decoder() {
        return capture();
    }

    @Override
    protected byte[] realBuffer() {
        if (real == null) {
            real = FakeBuffers.concatenated(FakeBuffers.collect("fake_ppu", "cupti", 0, KINDS,
                    "fakeLaunchKernel:0", "fakeMemcpy:64", "fakeMemset:32", "fakeLaunchKernel:1"));
        }
        return real;
    }

    @Override
    protected int unknownKind() {
        return 0x4242;
    }

    /** Per call: 2 external correlations, a driver and a runtime record, and the device record (13.0 sizes). */
    @Test
    void perRuntimeCallACorrelationAndADriverRecord() {
        assertEquals(8 * 24 + 8 * 40 + 2 * 216 + 96 + 88, realBuffer().length);
        DecodeStats stats = new DecodeStats();
        capture().decode(FakeBuffers.wrap(realBuffer()), new CollectingSink(), stats);
        assertEquals(4, stats.published(EventKind.DRIVER));
        assertEquals(4, stats.published(EventKind.RUNTIME));
        assertEquals(8, stats.bindings());
    }

    /** 2 MiB of 24- and 40-byte records: the walk is bounded by the valid size, not by a record count. */
    @Test
    void aBufferOfManySmallRecordsDecodesToTheLastRecord() {
        int pairs = (2 << 20) / 64;
        ByteBuffer b = ByteBuffer.allocate(pairs * 64).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < pairs; i++) {
            b.putInt(39).putInt(3).putLong(i).putInt(i + 1).putInt(0);
            b.putInt(4).putInt(307).putLong(1_000_000 + i).putLong(1_000_500 + i).putInt(1).putInt(2).putInt(i + 1).putInt(0);
        }
        b.flip();
        DecodeStats stats = new DecodeStats();
        CollectingSink sink = new CollectingSink();
        capture().decode(b, sink, stats);
        assertEquals(pairs, stats.bindings());
        assertEquals(pairs, stats.published(EventKind.DRIVER));
        TraceRecord last = sink.records.get(sink.records.size() - 1);
        assertEquals(pairs, last.correlation());
        assertEquals(CLOCK.toEpoch(1_000_000 + pairs - 1), last.startNs, "device time mapped to epoch");
    }

    @Test
    void timesOutsideThePlausibleSpanAreDroppedAndCounted() {
        CuptiBufferDecoder decoder = new CuptiBufferDecoder(CuptiBufferDecoder.liveKernelNames(BufferTap.NONE),
                new NameTable(), List.of());
        ByteBuffer b = ByteBuffer.allocate(80).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(5).putInt(211).putLong(1_000).putLong(2_000).putInt(1).putInt(2).putInt(1).putInt(0);
        b.putInt(5).putInt(211).putLong(5_000_000).putLong(5_000_100).putInt(1).putInt(2).putInt(2).putInt(0);
        b.flip();
        long from = CLOCK.toEpoch(4_000_000);
        decoder.clock(CLOCK, from, from + 10_000_000);
        DecodeStats stats = new DecodeStats();
        CollectingSink sink = new CollectingSink();
        decoder.decode(b, sink, stats);
        assertEquals(1, sink.records.size());
        assertEquals(2, sink.records.get(0).correlation());
        assertEquals(CLOCK.toEpoch(5_000_000), sink.records.get(0).startNs);
        assertEquals(1, stats.invalidRecords());
    }
}
