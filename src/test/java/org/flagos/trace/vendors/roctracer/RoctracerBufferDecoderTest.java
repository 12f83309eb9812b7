package org.flagos.trace.vendors.roctracer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Map;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.testing.CollectingSink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The ROCtracer decoder's rules, on the buffer the fake libroctracer delivered (a kernel, a copy, a
 * fill, a barrier, four HIP calls, four bindings: {@link RoctracerDecoderContractTest#fakeBuffer}),
 * agitated record by record: other domains and EXT_API marks are counted under
 * {@code domain * 1000 + op}; an id past 2^63, a device past the limit, a queue that is no index,
 * a time outside the session are invalid, each in its words; a domain past ROCtracer's enum or a
 * short tail ends the walk.
 */
class RoctracerBufferDecoderTest {
    private static ByteBuffer fake() {
        byte[] real = RoctracerDecoderContractTest.fakeBuffer();
        return ByteBuffer.wrap(real.clone()).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** The offset of the first record of {@code domain} (and {@code op}, unless -1). */
    private static int first(ByteBuffer b, int domain, int op) {
        for (int pos = 0; pos < b.limit(); pos += RoctracerRecord.SIZE) {
            if (b.getInt(pos) == domain && (op < 0 || b.getInt(pos + RoctracerRecord.OP) == op)) {
                return pos;
            }
        }
        throw new AssertionError("no record of domain " + domain + " op " + op);
    }

    private static DecodeStats decode(RoctracerBufferDecoder decoder, ByteBuffer b, CollectingSink sink) {
        DecodeStats stats = new DecodeStats();
        decoder.decode(b, sink, stats);
        return stats;
    }

    private static DecodeStats decode(ByteBuffer b) {
        return decode(new RoctracerBufferDecoder(KernelNames.NONE, new NameTable(), DeviceClockMapping.IDENTITY), b,
                new CollectingSink());
    }

    @ParameterizedTest
    @ValueSource(ints = {0 /* HSA_API */, 1 /* HSA_OPS */, 4 /* HIP_VDI */, 6 /* ROCTX */, 7 /* HSA_EVT */})
    void anotherDomainIsCountedUnderDomainAndOp(int domain) {
        ByteBuffer b = fake();
        int at = first(b, RoctracerRecord.DOMAIN_HIP_API, -1);
        int op = b.getInt(at + RoctracerRecord.OP);
        b.putInt(at, domain);
        DecodeStats stats = decode(b);
        assertEquals(Map.of(2002, 1L, domain * 1000 + op, 1L), stats.skippedByVendorKind());
        assertEquals(3, stats.published(EventKind.RUNTIME));
        assertEquals(0, stats.undecodableBytes());
    }

    @Test
    void anExtApiMarkIsSkippedAndAnIdPast2To63IsInvalid() {
        ByteBuffer b = fake();
        int mark = first(b, RoctracerRecord.DOMAIN_EXT_API, RoctracerRecord.EXT_OP_EXTERN_ID);
        b.putInt(mark + RoctracerRecord.OP, 0);
        DecodeStats marked = decode(b);
        assertEquals(Map.of(2002, 1L, 5000, 1L), marked.skippedByVendorKind());
        assertEquals(3, marked.bindings());

        ByteBuffer c = fake();
        int ext = first(c, RoctracerRecord.DOMAIN_EXT_API, RoctracerRecord.EXT_OP_EXTERN_ID);
        c.putLong(ext + RoctracerRecord.EXTERNAL_ID, -1L);
        long correlation = c.getLong(ext + RoctracerRecord.CORRELATION_ID);
        DecodeStats invalid = decode(c);
        assertEquals(3, invalid.bindings());
        assertEquals("External id above 2^63 in EXT_API record of correlation " + correlation, invalid.problems());
    }

    @ParameterizedTest
    @ValueSource(ints = {8, 1000, -1})
    void aDomainPastRoctracersEnumEndsTheWalk(int domain) {
        ByteBuffer b = fake();
        b.putInt(3 * 64, domain);
        CollectingSink sink = new CollectingSink();
        DecodeStats stats = decode(new RoctracerBufferDecoder(KernelNames.NONE, new NameTable(), DeviceClockMapping.IDENTITY),
                b, sink);
        assertEquals(9 * 64, stats.undecodableBytes());
        assertEquals("unknown ROCtracer activity domain " + Integer.toUnsignedString(domain)
                + " at offset 192: not an activity_record_t, rest of buffer (576 bytes) skipped", stats.problems());
        assertEquals(3, sink.records.size() + stats.skippedTotal(), "the three records before it, and only those");
    }

    @Test
    void aTailShorterThanARecordIsCounted() {
        byte[] real = RoctracerDecoderContractTest.fakeBuffer();
        ByteBuffer b = ByteBuffer.wrap(Arrays.copyOf(real, real.length + 10)).order(ByteOrder.LITTLE_ENDIAN);
        b.position(64); // a view that starts at the second record: offsets are the view's
        DecodeStats stats = decode(b);
        assertEquals(10, stats.undecodableBytes());
        assertEquals("ROCtracer buffer ends with 10 bytes, less than a 64-byte record, at offset 704", stats.problems());
    }

    @Test
    void aDeviceOrQueueOutOfRangeIsInvalidInItsWords() {
        ByteBuffer b = fake();
        int kernel = first(b, RoctracerRecord.DOMAIN_HIP_OPS, RoctracerRecord.OP_DISPATCH);
        int copy = first(b, RoctracerRecord.DOMAIN_HIP_OPS, RoctracerRecord.OP_COPY);
        b.putInt(kernel + RoctracerRecord.DEVICE_ID, 1024);
        b.putLong(copy + RoctracerRecord.QUEUE_ID, -1L);
        DecodeStats stats = decode(b);
        assertEquals(0, stats.published(EventKind.KERNEL));
        assertEquals(2, stats.invalidRecords());
        assertEquals(1, stats.published(EventKind.MEMCPY) + stats.published(EventKind.MEMSET), "the other copy is kept");
        String device = "HIP_OPS record: device id 1024 is not below 1024";
        String queue = "HIP_OPS record: queue id 18446744073709551615 is not a queue index";
        assertEquals(kernel < copy ? device + "; " + queue : queue + "; " + device, stats.problems());

        ByteBuffer c = fake();
        c.putLong(first(c, RoctracerRecord.DOMAIN_HIP_OPS, RoctracerRecord.OP_DISPATCH) + RoctracerRecord.QUEUE_ID, 1L << 31);
        assertEquals("HIP_OPS record: queue id 2147483648 is not a queue index", decode(c).problems());
        ByteBuffer d = fake();
        d.putLong(first(d, RoctracerRecord.DOMAIN_HIP_OPS, RoctracerRecord.OP_DISPATCH) + RoctracerRecord.QUEUE_ID, Integer.MAX_VALUE);
        assertEquals(1, decode(d).published(EventKind.KERNEL), "the largest queue index");
    }

    @Test
    void timesAreMappedThenCheckedAgainstTheSessionsSpan() {
        ByteBuffer b = fake();
        int api = first(b, RoctracerRecord.DOMAIN_HIP_API, -1);
        long begin = b.getLong(api + RoctracerRecord.BEGIN_NS);
        long end = b.getLong(api + RoctracerRecord.END_NS);
        RoctracerBufferDecoder decoder = new RoctracerBufferDecoder(KernelNames.NONE, new NameTable(), DeviceClockMapping.IDENTITY);
        long offset = 1_000_000_000_000L;
        decoder.clock(new DeviceClockMapping(0, offset, 1.0), begin + offset + 1, Long.MAX_VALUE);
        CollectingSink sink = new CollectingSink();
        DecodeStats stats = decode(decoder, b, sink);
        assertEquals(("HIP_API record: [" + (begin + offset) + ", " + (end + offset) + "] lies outside the session's plausible span ["
                + (begin + offset + 1) + ", " + Long.MAX_VALUE + "]"), stats.problems().split("; ")[0]);
        sink.records.stream().filter(r -> r.kind == EventKind.RUNTIME)
                .forEach(r -> assertEquals(true, r.startNs > begin + offset, "mapped to epoch ns"));
    }

    @Test
    void aRecordWithoutTimeIsInvalid() {
        ByteBuffer b = fake();
        b.putLong(first(b, RoctracerRecord.DOMAIN_HIP_API, -1) + RoctracerRecord.BEGIN_NS, 0);
        DecodeStats stats = decode(b);
        assertEquals(3, stats.published(EventKind.RUNTIME));
        assertEquals("HIP_API record: start 0 is not a timestamp", stats.problems());
    }
}
