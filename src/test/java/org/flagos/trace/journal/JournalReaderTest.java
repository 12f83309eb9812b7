package org.flagos.trace.journal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.flagos.trace.cli.TestDevices;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.CaptureFormatException;
import org.flagos.trace.ingest.FltrbufFrames;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.ingest.OpsJsonlReader;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link JournalReader} on its own: the bundled h200-app-tiny2k capture journaled scans to the capture's own counts
 * (its frames, ops, kernel names, the H200 devices) and replays its vendor buffers byte for byte in capture order; a
 * replay interleaves ops and buffers in journal order, a buffers-only read leaves the ops out; a payload corrupted
 * after journaling ends scan and replay at the document before it, with one line; what is not a journal is refused
 * with one line; replay before scan is refused.
 */
class JournalReaderTest {
    private static final String CAPTURE = "h200-app-tiny2k";

    @TempDir
    Path tmp;

    /** The order a visitor was handed things in: "op NAME" and "buffer VENDOR LENGTH FIRST-BYTE". */
    private static final class Order implements JournalVisitor {
        final List<String> seen = new ArrayList<>();
        final List<byte[]> buffers = new ArrayList<>();

        @Override
        public void op(HostOp op) {
            seen.add("op " + op.name());
        }

        @Override
        public void buffer(int vendor, int layout, ByteBuffer bytes) {
            byte[] b = new byte[bytes.remaining()];
            bytes.get(b);
            buffers.add(b);
            seen.add("buffer " + vendor + " " + b.length + " " + b[0]);
        }
    }

    @Test
    void theBundledCaptureScansToItsOwnCountsAndReplaysItsBuffersByteForByte() throws IOException {
        Path dir = tmp.resolve("j");
        JournalFixtures.journal(CAPTURE, dir);
        List<byte[]> frames = new ArrayList<>();
        int vendor;
        try (FltrbufFrames f = new FltrbufFrames(CaptureBytes.load(Captures.capture(CAPTURE)), CAPTURE)) {
            assertTrue(f.next());
            vendor = f.vendor();
            do {
                ByteBuffer p = f.payload();
                byte[] b = new byte[p.remaining()];
                p.duplicate().get(b);
                frames.add(b);
            } while (f.next());
        }
        List<HostOp> ops = OpsJsonlReader.read(Captures.ops(CAPTURE)).ops();
        Map<Long, String> names = KernelNameFile.read(Captures.names(CAPTURE)).entries();

        assertTrue(JournalReader.isJournal(dir));
        try (JournalReader reader = JournalReader.open(dir)) {
            JournalFacts facts = reader.scan();
            assertNull(facts.damage());
            assertTrue(facts.ended());
            assertEquals(CAPTURE, facts.traceName());
            assertEquals(frames.size(), facts.buffers(), "one whole buffer per capture frame");
            assertEquals(ops.size(), facts.ops());
            assertEquals(2021, facts.ops(), "the capture's ops file holds 2,021 ops");
            assertEquals(names, facts.names());
            assertEquals(TestDevices.h200(), facts.devices());
            assertEquals(vendor, facts.vendor());
            assertEquals(0, facts.firstSeq());
            assertEquals(0, facts.invalidOps());
            assertNull(facts.firstInvalidOp());

            Order order = new Order();
            assertNull(reader.buffers(order));
            assertEquals(frames.size(), order.buffers.size());
            for (int i = 0; i < frames.size(); i++) {
                assertArrayEquals(frames.get(i), order.buffers.get(i), "buffer " + i);
            }
            assertTrue(order.seen.stream().allMatch(s -> s.startsWith("buffer ")), "buffers only");

            List<HostOp> replayed = new ArrayList<>();
            assertNull(reader.replay(new JournalVisitor() {
                @Override
                public void op(HostOp op) {
                    replayed.add(op);
                }

                @Override
                public void buffer(int v, int layout, ByteBuffer bytes) {
                }
            }));
            Comparator<HostOp> byTime = Comparator.comparingLong(HostOp::startNs).thenComparingLong(HostOp::endNs)
                    .thenComparingLong(op -> op.externalId().value()).thenComparingLong(HostOp::thread);
            List<HostOp> want = new ArrayList<>(ops);
            want.sort(byTime);
            replayed.sort(byTime);
            assertEquals(want.stream().map(op -> op.name() + " " + op.startNs() + " " + op.endNs()).toList(),
                    replayed.stream().map(op -> op.name() + " " + op.startNs() + " " + op.endNs()).toList());
        }
    }

    /** op-a, buffer 1 (three parts, 0x11...), op-b, buffer 2 (0x22... with a marker), op-c, stop. */
    private Path interleaved() throws IOException {
        return interleavedAt(tmp.resolve("mixed"));
    }

    private static Path interleavedAt(Path dir) throws IOException {
        byte[] one = new byte[2 * JournalSchema.WRITE_CHUNK_BYTES + 5];
        Arrays.fill(one, (byte) 0x11);
        byte[] two = new byte[4096];
        Arrays.fill(two, (byte) 0x22);
        byte[] marker = "THE-SECOND-BUFFER-MARKER".getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(marker, 0, two, 2000, marker.length);
        try (JournalWriter writer = JournalWriter.open(JournalOptions.to(dir),
                new JournalSession("mixed", "test", 1_000, List.of(), Map.of(), -1, false))) {
            writer.op(new HostOp("op-a", new ExternalId(1), 7, 1_000, 1_010));
            writer.buffer(5, ByteBuffer.wrap(one));
            writer.op(new HostOp("op-b", new ExternalId(2), 7, 1_020, 1_030));
            writer.buffer(5, ByteBuffer.wrap(two));
            writer.op(new HostOp("op-c", new ExternalId(3), 7, 1_040, 1_050));
            writer.stop(2_000);
        }
        return dir;
    }

    @Test
    void aReplayInterleavesOpsAndBuffersInJournalOrder() throws IOException {
        Path dir = interleaved();
        try (JournalReader reader = JournalReader.open(dir)) {
            JournalFacts facts = reader.scan();
            assertNull(facts.damage());
            assertEquals(1 + 1 + 3 + 1 + 1 + 1 + 1, facts.documents());
            assertEquals(2_000, facts.lastNs());
            Order all = new Order();
            assertNull(reader.replay(all));
            int big = 2 * JournalSchema.WRITE_CHUNK_BYTES + 5;
            assertEquals(List.of("op op-a", "buffer 5 " + big + " 17", "op op-b", "buffer 5 4096 34", "op op-c"), all.seen);
            Order buffers = new Order();
            assertNull(reader.buffers(buffers));
            assertEquals(List.of("buffer 5 " + big + " 17", "buffer 5 4096 34"), buffers.seen);
        }
    }

    @Test
    void aPayloadCorruptedAfterJournalingEndsTheReadAtTheDocumentBeforeIt() throws IOException {
        Path dir = interleaved();
        Path file = JournalDamageTest.cycleFile(dir);
        long at = JournalDamageTest.find(file, "THE-SECOND-BUFFER-MARKER".getBytes(StandardCharsets.US_ASCII));
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(at);
            f.write('X');
        }
        try (JournalReader reader = JournalReader.open(dir)) {
            JournalFacts facts = reader.scan();
            assertEquals(dir + ": document 6: the buffer's bytes fail their CRC (corrupted)", facts.damage());
            assertEquals(6, facts.documents(), "session, op-a, three parts, op-b");
            assertEquals(1, facts.buffers());
            assertEquals(2, facts.ops());
            assertFalse(facts.ended());
            Order all = new Order();
            assertEquals(facts.damage(), reader.replay(all));
            assertEquals(List.of("op op-a", "buffer 5 " + (2 * JournalSchema.WRITE_CHUNK_BYTES + 5) + " 17", "op op-b"), all.seen);
        }
    }

    @Test
    void whatIsNotAJournalIsRefusedWithOneLine() throws IOException {
        Path missing = tmp.resolve("missing");
        CaptureFormatException e = assertThrows(CaptureFormatException.class, () -> JournalReader.open(missing));
        assertEquals(missing + ": no such journal directory", e.getMessage());
        assertFalse(JournalReader.isJournal(missing));

        Path plain = Files.createDirectories(tmp.resolve("plain"));
        Files.writeString(plain.resolve("x.txt"), "x");
        e = assertThrows(CaptureFormatException.class, () -> JournalReader.open(plain));
        assertEquals(plain + ": a directory that is not a flagtrace journal (it has no metadata.cq4t); a journal is the directory"
                + " that --journal writes", e.getMessage());
        assertFalse(JournalReader.isJournal(plain));
        try (var entries = Files.list(plain)) {
            assertEquals(1, entries.count(), "nothing written into it");
        }

        Path file = Files.writeString(tmp.resolve("file"), "x");
        assertThrows(CaptureFormatException.class, () -> JournalReader.open(file));
        assertFalse(JournalReader.isJournal(file));

        Path gone = interleaved();
        Path cycle = JournalDamageTest.cycleFile(gone);
        Files.delete(cycle);
        e = assertThrows(CaptureFormatException.class, () -> JournalReader.open(gone), "its cycle file deleted");
        assertTrue(e.getMessage().startsWith(gone + ": cannot list the journal's cycle files") && !e.getMessage().contains("\n"),
                e.getMessage());

        Path again = interleavedAt(tmp.resolve("emptied"));
        try (RandomAccessFile f = new RandomAccessFile(JournalDamageTest.cycleFile(again).toFile(), "rw")) {
            f.setLength(0);
        }
        try (JournalReader reader = JournalReader.open(again)) {
            e = assertThrows(CaptureFormatException.class, reader::scan, "its cycle file emptied");
            assertTrue(e.getMessage().startsWith(again + ": ") && !e.getMessage().contains("\n"), e.getMessage());
        }
    }

    @Test
    void replayBeforeScanIsRefused() throws IOException {
        Path dir = interleaved();
        try (JournalReader reader = JournalReader.open(dir)) {
            assertThrows(IllegalStateException.class, () -> reader.replay(new Order()));
            assertThrows(IllegalStateException.class, () -> reader.buffers(new Order()));
            assertThrows(IllegalStateException.class, reader::ops);
        }
    }

    @Test
    void aReadFailureIsDescribedInWords() {
        assertEquals("name document 3 has no name", JournalReader.describe(new JournalDocuments.Damage("name document 3 has no name")));
        assertEquals("its bytes run past the end of the file", JournalReader.describe(new InternalError("a fault")));
        assertEquals("its bytes do not decode as a journal document",
                JournalReader.describe(new IllegalStateException("net.openhft.chronicle.wire.Whatever")));
    }
}
