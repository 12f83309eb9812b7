package org.flagos.trace.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.flagos.trace.model.ActivityBufferDecoder;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.vendors.Vendors;

/**
 * Fuzz target: one activity buffer through the replay decoder of every {@code .fltrbuf} vendor
 * (CUPTI, MSPTI, MUPTI, ROCtracer, TOPSPTI, MCPTI). The first byte picks the vendor, the second the
 * clock (identity or a vendor clock), the rest is the buffer. Every name handle resolves to a name,
 * so name paths are taken too. No decoder may throw or count more bad bytes than it was given.
 *
 * <p>Seeds: {@code src/test/resources/org/flagos/trace/fuzz/VendorDecodersFuzzTestInputs/decode/},
 * one buffer each vendor's fake library wrote (the decoder contract tests' buffers).
 */
class VendorDecodersFuzzTest {
    private static final int[] VENDORS = {1, 2, 3, 4, 5, 6};
    private static final DeviceClockMapping VENDOR_CLOCK = new DeviceClockMapping(1_000_000L, 1_700_000_000_000_000_000L, 1.0001);
    private static final KernelNames EVERY_HANDLE_NAMED = handle -> "_Z6kernelPfi";

    @FuzzTest(maxDuration = "3m")
    void decode(byte[] input) {
        if (input.length < 2) {
            return;
        }
        int vendor = VENDORS[Math.floorMod(input[0], VENDORS.length)];
        DeviceClockMapping clock = (input[1] & 1) == 0 ? DeviceClockMapping.IDENTITY : VENDOR_CLOCK;
        ActivityBufferDecoder decoder = Vendors.decoderFor(vendor).create(EVERY_HANDLE_NAMED, new NameTable(), List.of(), clock);
        DecodeStats stats = new DecodeStats();
        int length = input.length - 2;
        decoder.decode(ByteBuffer.wrap(input, 2, length).slice().order(ByteOrder.LITTLE_ENDIAN), new SlotSink(), stats);
        if (stats.undecodableBytes() > length) {
            throw new IllegalStateException("vendor " + vendor + ": " + stats.undecodableBytes()
                    + " undecodable bytes counted in a " + length + "-byte buffer");
        }
    }

    /** Translates every record into one reused slot, as the ring does. */
    private static final class SlotSink implements RecordSink {
        private final TraceRecord slot = new TraceRecord();
        private long sequence;

        @Override
        public <A> void publish(EventTranslatorOneArg<TraceRecord, A> translator, A source) {
            translator.translateTo(slot, sequence++, source);
        }
    }
}
