package org.flagos.trace.journal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.wire.ReadMarshallable;
import net.openhft.chronicle.wire.Wire;
import net.openhft.chronicle.wire.WireType;
import net.openhft.chronicle.wire.WriteMarshallable;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.DevicePropertiesFile;
import org.flagos.trace.ingest.FltrbufFrames;
import org.flagos.trace.ingest.HostMark;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.ingest.OpsJsonlReader;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;

/**
 * The journal's document types on their own, through Chronicle's binary wire as the queue writes them: every op of
 * the real h200-java-kinds, h200-java-steps and h200-app-tiny2k ops files (args, stacks, annotations) and every device of the H200
 * runs back as they were; a clock knot onto the mapping so far; parts of a real vendor buffer; the check field that
 * catches a damaged document; and the words an op that cannot be one is skipped with.
 */
class JournalDocumentsTest {
    /** {@code doc} written as document {@code type}, then read into {@code into}. */
    private static <T extends ReadMarshallable> T roundTrip(String type, WriteMarshallable doc, T into) {
        Wire wire = WireType.BINARY_LIGHT.apply(Bytes.allocateElasticOnHeap());
        wire.write(type).marshallable(doc);
        wire.read(type).marshallable(into);
        return into;
    }

    private static JournalDocuments.Op op(long seq, HostOp op) {
        JournalDocuments.Op d = new JournalDocuments.Op();
        d.seq = seq;
        d.name = op.name();
        d.externalId = op.externalId().value();
        d.thread = op.thread();
        d.threadName = op.threadName();
        d.startNs = op.startNs();
        d.endNs = op.endNs();
        d.args = op.args() == null ? null : op.args().toJson();
        d.stack = op.stack() == null ? null : op.stack().framesJson();
        d.annotation = op.annotation();
        return d;
    }

    @Test
    void everyOpOfTheBundledOpsFilesReadsBackAsItWas() {
        JournalDocuments.Op read = new JournalDocuments.Op(); // one instance reused, as the reader does
        int withArgs = 0;
        int withStack = 0;
        for (String capture : List.of("h200-java-kinds/h200-java-kinds", "h200-java-steps/h200-java-steps", "h200-app-tiny2k")) {
            List<HostOp> ops = OpsJsonlReader.read(Captures.ops(capture)).ops();
            assertTrue(ops.size() > 10, capture);
            for (int i = 0; i < ops.size(); i++) {
                HostOp op = ops.get(i);
                roundTrip(JournalSchema.OP, op(i, op), read);
                assertEquals(i, read.seq);
                assertNull(read.invalid(), op.toString());
                assertEquals(op, read.toHostOp(), capture + " op " + i);
                withArgs += op.args() == null ? 0 : 1;
                withStack += op.stack() == null ? 0 : 1;
            }
        }
        assertTrue(withArgs > 0 && withStack > 0, "args " + withArgs + ", stacks " + withStack);
    }

    @Test
    void aMarkReadsBackWithOrWithoutItsDomain() {
        JournalDocuments.Mark read = new JournalDocuments.Mark(); // reused: a mark without a domain must not keep the last one's
        for (HostMark mark : List.of(new HostMark("registered mark", "app", 4242, 4243, 1_796_225_915_000_000_123L),
                new HostMark("tick", null, 4242, 4242, 1_796_225_915_000_000_456L), new HostMark("", null, 1, 2, 0))) {
            JournalDocuments.Mark m = new JournalDocuments.Mark();
            m.seq = 11;
            m.name = mark.name();
            m.domain = mark.domain();
            m.pid = mark.pid();
            m.thread = mark.thread();
            m.tsNs = mark.tsNs();
            roundTrip(JournalSchema.MARK, m, read);
            assertNull(read.invalid(), mark.toString());
            assertEquals(mark, read.toHostMark());
        }
        read.name = null;
        assertEquals("the mark has no name", read.invalid());
        read.name = "late";
        read.tsNs = -1;
        assertEquals("mark 'late' has a negative time (-1)", read.invalid());
    }

    @Test
    void everyDeviceAndTheSessionReadBackAsTheyWere() {
        List<DeviceProperties> devices = DevicePropertiesFile.read(Captures.dir().resolve("h200-java-parity.devices.json"));
        assertTrue(!devices.isEmpty());
        for (DeviceProperties device : devices) {
            JournalDocuments.Device d = new JournalDocuments.Device();
            d.seq = 3;
            d.device = device;
            assertEquals(device, roundTrip(JournalSchema.DEVICE, d, new JournalDocuments.Device()).device);
        }

        JournalDocuments.Session s = new JournalDocuments.Session();
        s.seq = 0;
        s.id = 42;
        s.traceName = "h200-app";
        s.source = "replay";
        s.startNs = 1_796_225_915_984_883_158L;
        s.pid = 4711;
        s.repeat = true;
        s.metadata.put("z", "last in order, first written");
        s.metadata.put("a", "\u00e9t\u00e9 \"quoted\"");
        JournalDocuments.Session r = roundTrip(JournalSchema.SESSION, s, new JournalDocuments.Session());
        assertEquals(List.of(JournalSchema.VERSION, 42L, "h200-app", "replay", s.startNs, 4711L, true),
                List.of(r.schema, r.id, r.traceName, r.source, r.startNs, r.pid, r.repeat));
        assertEquals(List.of(Map.entry("z", "last in order, first written"), Map.entry("a", "\u00e9t\u00e9 \"quoted\"")),
                List.copyOf(r.metadata.entrySet()), "in the order written");
    }

    @Test
    void aClockKnotStartsTheMappingOrIsAddedOntoIt() {
        JournalDocuments.Clock c = new JournalDocuments.Clock();
        c.seq = 5;
        c.vendorNs = 1_000;
        c.epochNs = 1_796_225_915_000_000_000L;
        c.rate = 1.000_000_7;
        JournalDocuments.Clock first = roundTrip(JournalSchema.CLOCK, c, new JournalDocuments.Clock());
        DeviceClockMapping line = new DeviceClockMapping(1_000, c.epochNs, 1.000_000_7);
        assertEquals(line, first.onto(null));
        assertEquals(line, first.onto(DeviceClockMapping.IDENTITY), "identity is no mapping yet");

        c.vendorNs = 5_000_000_000L;
        c.epochNs = line.toEpoch(5_000_000_000L) + 250;
        c.rate = 0.999_999_9;
        JournalDocuments.Clock later = roundTrip(JournalSchema.CLOCK, c, new JournalDocuments.Clock());
        DeviceClockMapping two = later.onto(line);
        assertEquals(line.withKnot(5_000_000_000L, c.epochNs, 0.999_999_9), two);
        assertEquals(2, two.knots());
        assertEquals(line.toEpoch(4_000_000_000L), two.toEpoch(4_000_000_000L), "before the knot as before");
        assertEquals(c.epochNs, two.toEpoch(5_000_000_000L));
        assertEquals(line, first.onto(two), "a knot replaces every one at or after its vendor time");
    }

    @Test
    void aBufferPartCarriesItsBytesAndAScanSkipsThem() {
        ByteBuffer payload;
        try (FltrbufFrames frames = new FltrbufFrames(CaptureBytes.load(Captures.capture("h200-app-tiny2k")), "tiny2k")) {
            assertTrue(frames.next());
            payload = frames.payload();
        }
        byte[] all = new byte[payload.remaining()];
        payload.duplicate().get(all);
        int offset = 1 << 12;
        int part = 3_000;
        JournalDocuments.Buffer b = new JournalDocuments.Buffer();
        b.seq = 9;
        b.vendor = 1;
        b.atNs = 77;
        b.length = all.length;
        b.offset = offset;
        b.part = java.util.Arrays.copyOfRange(all, offset, offset + part + 100); // the part is its first partLength bytes
        b.partLength = part;
        b.crc = 0x1234_5678;

        JournalDocuments.Buffer read = new JournalDocuments.Buffer();
        read.payload = Bytes.allocateElasticOnHeap();
        roundTrip(JournalSchema.BUFFER, b, read);
        assertEquals(List.of(9L, 1, JournalSchema.LAYOUT_RAW_V1, 77L, all.length, offset, part, 0x1234_5678),
                List.of(read.seq, read.vendor, read.layout, read.atNs, read.length, read.offset, read.partLength, read.crc));
        assertArrayEquals(java.util.Arrays.copyOfRange(all, offset, offset + part), read.payload.toByteArray());

        JournalDocuments.Buffer scan = new JournalDocuments.Buffer(); // no payload: the bytes are passed over, the check still read
        roundTrip(JournalSchema.BUFFER, b, scan);
        assertEquals(part, scan.partLength);
        assertEquals(0, scan.part.length);
    }

    @Test
    void aDocumentFailingItsCheckIsDamageInWords() {
        WriteMarshallable stopWithBadCheck = w -> w.write("seq").int64(7).write("endNs").int64(1).write("buffers").int64(2)
                .write("ops").int64(3).write("check").int64(7);
        JournalDocuments.Damage e = assertThrows(JournalDocuments.Damage.class,
                () -> roundTrip(JournalSchema.STOP, stopWithBadCheck, new JournalDocuments.Stop()));
        assertEquals("document 7 fails its check field (cut short or corrupted)", e.getMessage());
        assertEquals(0, e.getStackTrace().length, "a message, not a place in the code");

        WriteMarshallable cut = w -> w.write("seq").int64(8).write("handle").int64(0x7f00L); // the name and check cut off
        assertEquals("document 8 fails its check field (cut short or corrupted)", assertThrows(JournalDocuments.Damage.class,
                () -> roundTrip(JournalSchema.NAME, cut, new JournalDocuments.Name())).getMessage());

        JournalDocuments.Stop stop = new JournalDocuments.Stop();
        stop.seq = 11;
        stop.endNs = 99;
        stop.buffers = 4;
        stop.ops = 2;
        JournalDocuments.Stop read = roundTrip(JournalSchema.STOP, stop, new JournalDocuments.Stop());
        assertEquals(List.of(11L, 99L, 4L, 2L), List.of(read.seq, read.endNs, read.buffers, read.ops));
    }

    @Test
    void anOpThatCannotBeOneSaysWhy() {
        HostOp good = new HostOp("aten::mm", new org.flagos.trace.model.ExternalId(3), 7, 100, 200, "main");
        JournalDocuments.Op d = op(1, good);
        assertNull(d.invalid());
        d.name = null;
        assertEquals("the op has no name", d.invalid());
        d = op(1, good);
        d.externalId = -2;
        assertEquals("op 'aten::mm' has a negative External id (-2)", d.invalid());
        d = op(1, good);
        d.startNs = -1;
        assertEquals("op 'aten::mm' has a negative time (start -1, end 200)", d.invalid());
        d = op(1, good);
        d.endNs = 40;
        assertEquals("op 'aten::mm' ends 60 ns before it starts", d.invalid());
        d = op(1, good);
        d.endNs = 100;
        assertNull(d.invalid(), "an op of no duration is one");
        d = op(1, good);
        d.args = "{\"Input Dims\": [[1, 2]"; // cut short
        assertTrue(d.invalid().startsWith("op 'aten::mm': "), d.invalid());
        d = op(1, good);
        d.stack = "{}";
        assertTrue(d.invalid().startsWith("op 'aten::mm': "), d.invalid());
        JournalDocuments.Op read = roundTrip(JournalSchema.OP, op(1, good), new JournalDocuments.Op());
        assertNull(read.invalid());
        assertSame(null, read.args, "no args field written, none read");
        assertEquals(good, read.toHostOp());
    }
}
