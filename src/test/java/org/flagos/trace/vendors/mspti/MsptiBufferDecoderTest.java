package org.flagos.trace.vendors.mspti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.testing.CollectingSink;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The MSPTI decoder's own routing, on the buffers the fake MSPTI wrote with the header's packed
 * structs (4 calls: 8 API records, 2 kernels, a copy, a set, 6 bindings), each agitated in place: the
 * kinds it does not draw are counted skipped under their kind, the four API kinds are all API calls,
 * both times 0 is MSPTI's "not collected" (incomplete) while one alone is invalid, a replay takes the
 * device ordinals its name table saved, an unknown kind ends the walk in MSPTI's wording.
 */
class MsptiBufferDecoderTest {
    private static final int KERNEL_START = 4;
    private static final int KERNEL_END = 12;
    private static final int KERNEL_DEVICE = 20;
    private static byte[] scripted;

    @BeforeAll
    static void record() {
        scripted = FakeMsptiBuffers.scripted();
    }

    private static ByteBuffer copy() {
        return ByteBuffer.wrap(scripted.clone()).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static int first(ByteBuffer b, int kind) {
        return FakeMsptiBuffers.offsets(b, kind).get(0);
    }

    private static DecodeStats decode(ByteBuffer b, CollectingSink sink) {
        DecodeStats stats = new DecodeStats();
        new MsptiBufferDecoder(KernelNames.NONE, new NameTable()).decode(b, sink, stats);
        return stats;
    }

    @Test
    void theScriptsRecordsArePublishedKindByKind() {
        DecodeStats stats = decode(copy(), new CollectingSink());
        assertEquals(8, stats.published(EventKind.RUNTIME));
        assertEquals(2, stats.published(EventKind.KERNEL));
        assertEquals(1, stats.published(EventKind.MEMCPY));
        assertEquals(1, stats.published(EventKind.MEMSET));
        assertEquals(6, stats.bindings());
        assertEquals(0, stats.skippedTotal() + stats.undecodableBytes() + stats.invalidRecords() + stats.incompleteRecords());
    }

    @ParameterizedTest
    @ValueSource(ints = {MsptiActivityKind.MARKER, MsptiActivityKind.HCCL})
    void aKindOfTheKernelsSizeItDoesNotDrawIsSkippedUnderItsKind(int kind) {
        ByteBuffer b = copy();
        b.putInt(first(b, MsptiActivityKind.KERNEL), kind);
        CollectingSink sink = new CollectingSink();
        DecodeStats stats = decode(b, sink);
        assertEquals(Map.of(kind, 1L), stats.skippedByVendorKind());
        assertEquals(1, stats.published(EventKind.KERNEL));
        assertEquals(0, stats.undecodableBytes(), "the walk goes on past it");
        assertEquals(17, sink.records.size());
    }

    @ParameterizedTest
    @ValueSource(ints = {MsptiActivityKind.API, MsptiActivityKind.ACL_API, MsptiActivityKind.NODE_API, MsptiActivityKind.RUNTIME_API})
    void everyApiKindIsAnApiCall(int kind) {
        ByteBuffer b = copy();
        for (int api : new int[] {MsptiActivityKind.ACL_API, MsptiActivityKind.RUNTIME_API}) {
            for (int at : FakeMsptiBuffers.offsets(copy(), api)) {
                b.putInt(at, kind);
            }
        }
        DecodeStats stats = decode(b, new CollectingSink());
        assertEquals(8, stats.published(EventKind.RUNTIME));
        assertEquals(0, stats.skippedTotal());
    }

    @Test
    void bothTimesZeroIsIncompleteOneAloneIsInvalid() {
        ByteBuffer b = copy();
        List<Integer> kernels = FakeMsptiBuffers.offsets(b, MsptiActivityKind.KERNEL);
        b.putLong(kernels.get(0) + KERNEL_START, 0).putLong(kernels.get(0) + KERNEL_END, 0);
        b.putLong(kernels.get(1) + KERNEL_START, 0);
        long end = b.getLong(kernels.get(1) + KERNEL_END);
        DecodeStats stats = decode(b, new CollectingSink());
        assertEquals(0, stats.published(EventKind.KERNEL));
        assertEquals(1, stats.incompleteRecords());
        assertEquals(1, stats.invalidRecords());
        assertEquals("kernel record: start 0 is not a timestamp", stats.problems(), "end " + end);
    }

    @Test
    void aReplayTakesTheDeviceOrdinalsItsNameTableSaved() {
        ByteBuffer b = copy();
        int physical = b.getInt(first(b, MsptiActivityKind.KERNEL) + KERNEL_DEVICE);
        Map<Long, String> saved = Map.of(AscendDevices.handle(physical), "5");
        CollectingSink sink = new CollectingSink();
        new MsptiBufferDecoder(saved::get, new NameTable()).decode(b, sink, new DecodeStats());
        List<Integer> devices = sink.records.stream().filter(r -> r.kind == EventKind.KERNEL).map(r -> r.device).toList();
        assertEquals(List.of(5, 5), devices, "physical " + physical + " is logical 5 where the live session ran");
        CollectingSink plain = new CollectingSink();
        decode(copy(), plain);
        assertEquals(List.of(physical, physical),
                plain.records.stream().filter(r -> r.kind == EventKind.KERNEL).map(r -> r.device).toList(), "nothing saved: as recorded");
    }

    @Test
    void anUnknownKindEndsTheWalkInMsptisWording() {
        ByteBuffer b = copy();
        int at = first(b, MsptiActivityKind.MEMSET);
        b.putInt(at, 13);
        CollectingSink sink = new CollectingSink();
        DecodeStats stats = decode(b, sink);
        int left = scripted.length - at;
        assertEquals(left, stats.undecodableBytes());
        assertEquals("unknown MSPTI activity kind 13 at offset " + at + ": its size is unknown, rest of buffer ("
                + left + " bytes) skipped", stats.problems());
    }

    @Test
    void eachCaptureGetsAFreshCorrelationRemap() {
        MsptiBufferDecoder decoder = new MsptiBufferDecoder(KernelNames.NONE, new NameTable());
        List<?> one = decoder.stages();
        List<?> two = decoder.stages();
        assertEquals(1, one.size());
        assertInstanceOf(MsptiCorrelationRemap.class, one.get(0));
        assertNotSame(one.get(0), two.get(0));
        assertEquals(MsptiApiNames.INSTANCE, decoder.apiNames());
    }
}
