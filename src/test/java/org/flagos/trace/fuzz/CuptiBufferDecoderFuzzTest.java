package org.flagos.trace.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.flagos.trace.cli.TestDevices;
import org.flagos.trace.model.ActivityBufferDecoder;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.vendors.Vendors;

/**
 * Fuzz target: one CUPTI activity buffer (a {@code .fltrbuf} frame's payload) through the CUPTI
 * decoder, every record translated into a ring slot as the ring would. The decoder never throws
 * on a bad buffer: it counts what it cannot decode. Any exception is a finding.
 *
 * <p>Seeds: {@code src/test/resources/org/flagos/trace/fuzz/CuptiBufferDecoderFuzzTestInputs/decode/}.
 */
class CuptiBufferDecoderFuzzTest {
    private static final List<DeviceProperties> H200 = TestDevices.h200();

    @FuzzTest(maxDuration = "3m")
    void decode(byte[] buffer) {
        decode(buffer, List.of());   // as the brief's plain decoder: no device properties
        decode(buffer, H200);        // as a replay with --device-properties h200: occupancy figures too
    }

    private static void decode(byte[] buffer, List<DeviceProperties> devices) {
        ActivityBufferDecoder decoder = Vendors.decoderFor(1).create(KernelNames.NONE, new NameTable(), devices);
        DecodeStats stats = new DecodeStats();
        SlotSink sink = new SlotSink();
        decoder.decode(ByteBuffer.wrap(buffer).order(ByteOrder.LITTLE_ENDIAN), sink, stats);
        if (stats.undecodableBytes() > buffer.length) {
            throw new IllegalStateException(stats.undecodableBytes() + " undecodable bytes counted in a "
                    + buffer.length + "-byte buffer");
        }
    }

    /** Translates every record into one reused slot, as the ring does with its preallocated slots. */
    private static final class SlotSink implements RecordSink {
        private final TraceRecord slot = new TraceRecord();
        private long sequence;

        @Override
        public <A> void publish(EventTranslatorOneArg<TraceRecord, A> translator, A source) {
            translator.translateTo(slot, sequence++, source);
        }
    }
}
