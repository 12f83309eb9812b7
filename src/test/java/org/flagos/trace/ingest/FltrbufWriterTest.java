package org.flagos.trace.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FltrbufWriter}: the frames of the bundled h200-java-parity capture (written on the H200 by this writer),
 * written again as a live tracer hands them over, are the capture byte for byte (magic, one 16-byte header a frame, the payload as given from its position), with
 * its kernel name table beside it (handles as unsigned hex, in unsigned order); nothing under the final names until
 * close, a {@code .partial} meanwhile; a vendor clock other than the identity goes to {@code NAME.clock.json}; a
 * discarded capture leaves nothing.
 */
class FltrbufWriterTest {
    @TempDir
    Path dir;

    private List<Path> files() throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return new ArrayList<>(s.map(p -> dir.relativize(p)).sorted().toList());
        }
    }

    @Test
    void theBundledCaptureWrittenAgainIsByteForByteTheSame() throws Exception {
        Path original = Captures.capture("h200-java-parity"); // written on the H200 by this writer, three frames
        Path target = dir.resolve("again.fltrbuf");
        Map<Long, String> names = KernelNameFile.read(Captures.names("h200-java-parity")).entries();
        int frames = 0;
        try (FltrbufWriter w = new FltrbufWriter(target); FltrbufFrames in = FltrbufFrames.open(original)) {
            while (in.next()) {
                ByteBuffer payload = in.payload();
                int position = payload.position();
                w.buffer(in.vendor(), payload);
                assertEquals(position, payload.position(), "the caller's buffer is not moved");
                frames++;
            }
            names.forEach(w::kernelName);
            assertEquals(frames, w.frames());
            assertEquals(List.of(Path.of("again.fltrbuf.partial")), files(), "only the partial file until close");
        }
        assertEquals(3, frames);
        assertArrayEquals(Files.readAllBytes(original), Files.readAllBytes(target));
        assertEquals(List.of(Path.of("again.fltrbuf"), Path.of("again.names.tsv")), files(), "no clock file for no clock");
        assertEquals(names, KernelNameFile.read(KernelNameFile.besides(target)).entries());
        assertEquals(Files.readString(Captures.names("h200-java-parity")), Files.readString(KernelNameFile.besides(target)),
                "the name table as the device run wrote it");
    }

    @Test
    void framesHandlesAndClock() throws Exception {
        Path target = dir.resolve("sub/small.fltrbuf");
        DeviceClockMapping clock = new DeviceClockMapping(1_000, 1_796_000_000_000_000_000L, 1.0);
        try (FltrbufWriter w = new FltrbufWriter(target)) {
            ByteBuffer b = ByteBuffer.wrap(new byte[] {9, 9, 1, 2, 3, 4, 5, 9});
            b.position(2).limit(7);
            w.buffer(7, b);
            w.buffer(1, ByteBuffer.allocate(0));
            w.buffer(2, ByteBuffer.wrap(new byte[100_000])); // larger than the first copy array
            w.kernelName(-1L, "the last handle");
            w.kernelName(0x10L, "sixteen");
            w.kernelName(1L, "one");
            w.kernelName(1L, "one again");
            w.clock(clock);
        }
        ByteBuffer f = ByteBuffer.wrap(Files.readAllBytes(target)).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        byte[] magic = new byte[8];
        f.get(magic);
        assertEquals("FLTRBUF1", new String(magic, java.nio.charset.StandardCharsets.US_ASCII));
        assertEquals(7, f.getInt());
        assertEquals(0, f.getInt());
        assertEquals(5, f.getLong());
        byte[] payload = new byte[5];
        f.get(payload);
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5}, payload, "from the buffer's position to its limit");
        assertEquals(1, f.getInt());
        assertEquals(0, f.getInt());
        assertEquals(0, f.getLong());
        assertEquals(2, f.getInt());
        assertEquals(0, f.getInt());
        assertEquals(100_000, f.getLong());
        assertEquals(100_000, f.remaining());
        assertEquals("# kernel name table: vendor name handle -> name as the vendor reported it\n"
                + "0x1\tone again\n0x10\tsixteen\n0xffffffffffffffff\tthe last handle\n",
                Files.readString(KernelNameFile.besides(target)), "unsigned order, the last name a handle was given");
        DeviceClockMapping back = DeviceClockFile.read(DeviceClockFile.besides(target));
        for (long t : new long[] {0, 1_000, 5_000_000}) {
            assertEquals(clock.toEpoch(t), back.toEpoch(t));
        }
    }

    @Test
    void anIdentityClockWritesNoFileAndADiscardedCaptureLeavesNothing() throws Exception {
        try (FltrbufWriter w = new FltrbufWriter(dir.resolve("id.fltrbuf"))) {
            w.clock(DeviceClockMapping.IDENTITY);
        }
        assertFalse(Files.exists(DeviceClockFile.besides(dir.resolve("id.fltrbuf"))));
        assertEquals(8, Files.size(dir.resolve("id.fltrbuf")), "the magic alone");
        FltrbufWriter w = new FltrbufWriter(dir.resolve("gone.fltrbuf"));
        w.buffer(1, ByteBuffer.wrap(new byte[] {1}));
        w.discard();
        assertEquals(List.of(Path.of("id.fltrbuf"), Path.of("id.names.tsv")), files());
    }
}
