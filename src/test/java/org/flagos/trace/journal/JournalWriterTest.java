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
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.flagos.trace.cli.TestDevices;
import org.flagos.trace.ingest.CaptureFormatException;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.model.ClockAnchor;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.ExternalId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link JournalWriter} on its own: each append is one document (a vendor buffer one per
 * {@link JournalSchema#WRITE_CHUNK_BYTES} part), a name or clock seen before is not written again,
 * nothing after the stop marker is written, and what was written reads back byte for byte; a close
 * without a stop leaves a journal that says it ended but not when; a directory that is not new or
 * empty, or a file, is refused before anything is written; a buffer past the journal's bound stops
 * the journal with one line at close, and everything before it stays readable.
 */
class JournalWriterTest {
    private static final long EPOCH = 1_700_000_000_000_000_000L;

    @TempDir
    Path tmp;

    private static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static JournalSession session(String name, List<DeviceProperties> devices) {
        return new JournalSession(name, "test-source", 1_000, devices, Map.of("k", "v"), 4242, false);
    }

    /** Collects what a reader's replay hands over. */
    private static final class Collected implements JournalVisitor {
        final List<HostOp> ops = new ArrayList<>();
        final List<byte[]> buffers = new ArrayList<>();
        final List<Integer> vendors = new ArrayList<>();

        @Override
        public void op(HostOp op) {
            ops.add(op);
        }

        @Override
        public void buffer(int vendor, int layout, ByteBuffer bytes) {
            assertEquals(JournalSchema.LAYOUT_RAW_V1, layout);
            byte[] b = new byte[bytes.remaining()];
            bytes.get(b);
            buffers.add(b);
            vendors.add(vendor);
        }
    }

    @Test
    void everyAppendIsOneDocumentAndReadsBackAsWritten() throws IOException {
        Path dir = tmp.resolve("j");
        List<DeviceProperties> devices = TestDevices.h200();
        byte[] big = bytes(2 * JournalSchema.WRITE_CHUNK_BYTES + 1234, 1); // three parts
        byte[] small = bytes(100, 2);
        DeviceClockMapping clock = new DeviceClockMapping(5_000, EPOCH, 0.952);
        HostOp first = new HostOp("aten::mm", new ExternalId(11), 7, 1_100, 1_200, "main");
        HostOp second = new HostOp("aten::add", new ExternalId(12), 8, 1_150, 1_300);
        ClockAnchor anchor = new ClockAnchor("stop", EPOCH + 10, 900, 5_000, 3);
        long documents;
        try (JournalWriter writer = JournalWriter.open(JournalOptions.to(dir), session("t", devices))) {
            assertEquals(1 + devices.size(), writer.documents(), "the session and one document per device");
            writer.kernelName(1, "k1");
            writer.kernelName(1, "k1"); // the same name again: not written
            writer.kernelName(1, "k1b"); // a new name for the handle: written
            writer.kernelName(2, "k2");
            writer.clock(clock);
            writer.clock(new DeviceClockMapping(5_000, EPOCH, 0.952)); // equal: not written
            writer.op(first);
            writer.buffer(3, ByteBuffer.wrap(big));
            writer.buffer(3, ByteBuffer.wrap(small));
            writer.op(second);
            writer.anchor(anchor);
            writer.stop(9_000);
            documents = writer.documents();
            assertEquals(1 + devices.size() + 3 + 1 + 1 + 3 + 1 + 1 + 1 + 1, documents);
            assertEquals(2, writer.buffers(), "whole buffers, not parts");
            writer.op(new HostOp("late", new ExternalId(13), 7, 9_100, 9_200));
            writer.buffer(3, ByteBuffer.wrap(small));
            writer.kernelName(3, "late");
            writer.stop(10_000);
            assertEquals(documents, writer.documents(), "nothing after the stop marker");
            assertEquals(0, writer.deletedCycles());
        }
        try (JournalReader reader = JournalReader.open(dir)) {
            JournalFacts facts = reader.scan();
            assertNull(facts.damage());
            assertEquals(documents, facts.documents());
            assertEquals("t", facts.traceName());
            assertEquals("test-source", facts.source());
            assertEquals(Map.of("k", "v"), facts.metadata());
            assertEquals(1_000, facts.startNs());
            assertEquals(9_000, facts.stopNs());
            assertTrue(facts.ended());
            assertEquals(devices, facts.devices());
            assertEquals(clock, facts.clock());
            assertEquals(Map.of(1L, "k1b", 2L, "k2"), facts.names());
            assertEquals(List.of(anchor), facts.anchors());
            assertEquals(3, facts.vendor());
            assertEquals(2, facts.buffers());
            assertEquals(2, facts.ops());
            Collected got = new Collected();
            assertNull(reader.replay(got));
            assertEquals(List.of(first, second), got.ops);
            assertEquals(List.of(3, 3), got.vendors);
            assertEquals(2, got.buffers.size());
            assertArrayEquals(big, got.buffers.get(0), "three parts reassembled");
            assertArrayEquals(small, got.buffers.get(1));
        }
    }

    @Test
    void aCloseWithoutStopEndsTheJournalWithoutAnEndTime() throws IOException {
        Path dir = tmp.resolve("j");
        JournalWriter writer = JournalWriter.open(JournalOptions.to(dir), session("t", List.of()));
        writer.op(new HostOp("aten::mm", new ExternalId(1), 7, 1_100, 1_200));
        writer.close();
        assertEquals(3, writer.documents(), "session, op, and the stop marker close appended");
        writer.close(); // a second close does nothing
        assertEquals(3, writer.documents());
        try (JournalReader reader = JournalReader.open(dir)) {
            JournalFacts facts = reader.scan();
            assertTrue(facts.ended(), "closed, not killed");
            assertFalse(facts.stopped(), "but no end time");
            assertEquals(JournalSchema.NO_TIME, facts.stopNs());
            assertEquals(1_200, facts.lastNs(), "the latest op end");
            assertEquals(3, facts.documents());
        }
    }

    @Test
    void aDirectoryThatIsNotNewOrEmptyOrAFileIsRefusedUntouched() throws IOException {
        Path full = Files.createDirectories(tmp.resolve("full"));
        Files.writeString(full.resolve("keep.txt"), "mine");
        CaptureFormatException e = assertThrows(CaptureFormatException.class,
                () -> JournalWriter.open(JournalOptions.to(full), session("t", List.of())));
        assertEquals("journal directory " + full + " is not empty: a journal is written into a new or empty directory", e.getMessage());
        try (var entries = Files.list(full)) {
            assertEquals(List.of(full.resolve("keep.txt")), entries.toList(), "nothing written beside it");
        }
        assertEquals("mine", Files.readString(full.resolve("keep.txt")));

        Path file = Files.writeString(tmp.resolve("a-file"), "mine");
        e = assertThrows(CaptureFormatException.class, () -> JournalWriter.open(JournalOptions.to(file), session("t", List.of())));
        assertEquals("journal " + file + " is a file, not a directory: give --journal a new or empty directory", e.getMessage());
        assertEquals("mine", Files.readString(file));
    }

    @Test
    void aBufferPastTheBoundStopsTheJournalAndCloseSaysSo() throws IOException {
        Path dir = tmp.resolve("j");
        Path sparse = tmp.resolve("sparse");
        byte[] small = bytes(64, 3);
        try (RandomAccessFile f = new RandomAccessFile(sparse.toFile(), "rw")) {
            f.setLength(JournalSchema.MAX_BUFFER_BYTES + 1L); // sparse: no disk, and mapped, no heap
        }
        JournalWriter writer = JournalWriter.open(JournalOptions.to(dir), session("t", List.of()));
        writer.buffer(1, ByteBuffer.wrap(small));
        try (FileChannel ch = FileChannel.open(sparse)) {
            MappedByteBuffer huge = ch.map(FileChannel.MapMode.READ_ONLY, 0, JournalSchema.MAX_BUFFER_BYTES + 1L);
            writer.buffer(1, huge); // never throws into the vendor's callback
        }
        writer.op(new HostOp("after", new ExternalId(1), 7, 1_100, 1_200));
        assertEquals(2, writer.documents(), "nothing appended after the failure");
        assertEquals(1, writer.buffers());
        IOException e = assertThrows(IOException.class, writer::close);
        assertEquals("writing the journal in " + dir + " failed after 2 documents: a vendor buffer of 268435457 bytes exceeds the"
                + " journal's 268435456-byte bound; the journal holds every document before the failure; check its free space and"
                + " permissions", e.getMessage());
        try (JournalReader reader = JournalReader.open(dir)) {
            JournalFacts facts = reader.scan();
            assertNull(facts.damage());
            assertEquals(2, facts.documents());
            assertFalse(facts.ended(), "no stop marker after the failure");
            Collected got = new Collected();
            assertNull(reader.replay(got));
            assertEquals(1, got.buffers.size());
            assertArrayEquals(small, got.buffers.get(0));
            assertEquals(List.of(), got.ops);
        }
    }

    @Test
    void aFailuresReasonIsItsIoMessageNeverAClassName() {
        assertEquals("No space left on device", JournalWriter.reason(new IOException(" No space left on device\n")));
        assertEquals("cannot map", JournalWriter.reason(new IllegalStateException("wrapped: java.lang.Foo",
                new IOException("cannot map"))));
        assertEquals("out of memory", JournalWriter.reason(new OutOfMemoryError("Java heap space")));
        assertEquals("the queue could not be written (an unexpected failure)",
                JournalWriter.reason(new IllegalStateException("net.openhft.chronicle.SomeException")));
        assertEquals("the queue could not be written (an unexpected failure)", JournalWriter.reason(new IOException("  ")));
    }
}
