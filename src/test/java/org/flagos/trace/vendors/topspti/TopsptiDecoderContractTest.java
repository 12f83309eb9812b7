package org.flagos.trace.vendors.topspti;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.flagos.trace.model.ActivityBufferDecoder;
import org.flagos.trace.model.ActivityDecoderContract;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.testing.CollectingSink;
import org.flagos.trace.testing.FakeSampleBuffer;
import org.flagos.trace.vendors.family.CuptiFamilyTracer;
import org.flagos.trace.vendors.cupti.CuptiExternalCorrelationDecoder;
import org.junit.jupiter.api.Test;

/** TOPSPTI's decoder against a buffer the fake TOPSPTI's record writers produced, and the contract. */
class TopsptiDecoderContractTest extends ActivityDecoderContract {
    private static final byte[] SAMPLE = FakeSampleBuffer.of("fake_topspti", "topspti", "fakeTopsptiSampleBuffer");

    @Override
    protected ActivityBufferDecoder decoder() {
        return TopsptiDecoder.replay(KernelNames.NONE, new NameTable(), DeviceClockMapping.IDENTITY);
    }

    @Override
    protected byte[] realBuffer() {
        return SAMPLE;
    }

    @Override
    protected int unknownKind() {
        return 1000;
    }

    @Test
    void theSampleDecodesKindByKind() {
        CollectingSink sink = new CollectingSink();
        DecodeStats stats = new DecodeStats();
        decoder().decode(ByteBuffer.wrap(SAMPLE).order(ByteOrder.LITTLE_ENDIAN), sink, stats);
        assertEquals(9, sink.records.size());
        assertEquals(3, stats.published(EventKind.KERNEL));
        assertEquals(3, stats.published(EventKind.RUNTIME));
        assertEquals(1, stats.published(EventKind.DRIVER));
        assertEquals(1, stats.published(EventKind.MEMCPY));
        assertEquals(1, stats.published(EventKind.MEMSET));
        assertEquals(0, stats.bindings());
    }

    @Test
    void theBindingFramesATracerSavesAreReadBack() {
        ByteBuffer frame = ByteBuffer.allocate(2 * CuptiExternalCorrelationDecoder.SIZE).order(ByteOrder.LITTLE_ENDIAN);
        CuptiExternalCorrelationDecoder.write(frame, 0, CuptiFamilyTracer.BINDING_RECORD_KIND, 3, 0, 17);
        CuptiExternalCorrelationDecoder.write(frame, CuptiExternalCorrelationDecoder.SIZE, CuptiFamilyTracer.BINDING_RECORD_KIND, 3, 42, 18);
        CollectingSink sink = new CollectingSink();
        DecodeStats stats = new DecodeStats();
        decoder().decode(frame, sink, stats);
        assertEquals(2, stats.bindings());
        assertEquals(RecordType.CORRELATION_BINDING, sink.records.get(0).type);
        assertEquals(17, sink.records.get(0).correlation());
        assertEquals(0, sink.records.get(0).externalId(), "0 is a valid External id");
        assertEquals(42, sink.records.get(1).externalId());
    }
}
