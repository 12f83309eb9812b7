package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.flagos.trace.cli.TestDevices;
import org.flagos.trace.ingest.FltrbufFrames;
import org.flagos.trace.ingest.FltrbufWriter;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.ingest.HostOps;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.ingest.OpsJsonlReader;
import org.flagos.trace.journal.JournalFacts;
import org.flagos.trace.journal.JournalOptions;
import org.flagos.trace.journal.JournalReader;
import org.flagos.trace.journal.JournalSchema;
import org.flagos.trace.journal.JournalVisitor;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CaptureJournal's own contract on the real h200-mt4 capture with frames of nothing and of another vendor mixed in:
 * the journal holds the request's session (name, source, window, devices, metadata), its clock (only when it maps),
 * every name, every op, and every frame with bytes in file order, byte for byte, whatever its vendor; without ops it
 * has no window but still its end.
 */
class CaptureJournalTest {
    private static final String CAPTURE = "h200-mt4";

    @TempDir
    Path dir;

    private record Buffer(int vendor, byte[] bytes) {
    }

    /** mt4's frames with an empty frame first and between them, and a frame of MSPTI after the second. */
    private Path mixed(List<Buffer> withBytes) throws Exception {
        Path path = dir.resolve("mixed.fltrbuf");
        try (FltrbufWriter w = new FltrbufWriter(path); FltrbufFrames frames = FltrbufFrames.open(Captures.capture(CAPTURE))) {
            w.buffer(1, ByteBuffer.allocate(0));
            for (int i = 0; frames.next(); i++) {
                byte[] bytes = new byte[frames.payload().remaining()];
                frames.payload().duplicate().get(bytes);
                w.buffer(frames.vendor(), ByteBuffer.wrap(bytes));
                withBytes.add(new Buffer(frames.vendor(), bytes));
                if (i == 1) {
                    byte[] foreign = new byte[48];
                    java.util.Arrays.fill(foreign, (byte) 7);
                    w.buffer(2, ByteBuffer.wrap(foreign));
                    withBytes.add(new Buffer(2, foreign));
                    w.buffer(1, ByteBuffer.allocate(0));
                }
            }
        }
        return path;
    }

    /** The journal's facts; its ops and buffers, each in journal order, into the lists given. */
    private static JournalFacts read(Path journal, List<HostOp> ops, List<Buffer> buffers) {
        try (JournalReader reader = JournalReader.open(journal)) {
            JournalFacts facts = reader.scan();
            assertNull(reader.replay(new JournalVisitor() {
                @Override
                public void buffer(int vendor, int layout, ByteBuffer bytes) {
                    byte[] b = new byte[bytes.remaining()];
                    bytes.duplicate().get(b);
                    buffers.add(new Buffer(vendor, b));
                }

                @Override
                public void op(HostOp op) {
                    ops.add(op);
                }
            }), "no damage");
            return facts;
        }
    }

    @Test
    void theJournalHoldsTheSessionNamesOpsAndEveryFrameWithBytes() throws Exception {
        List<Buffer> written = new ArrayList<>();
        Path capture = mixed(written);
        assertEquals(6, written.size(), "mt4's five buffers and the foreign one");
        HostOps ops = OpsJsonlReader.read(Captures.ops(CAPTURE));
        Map<Long, String> names = KernelNameFile.read(Captures.names(CAPTURE)).entries();
        DeviceClockMapping clock = new DeviceClockMapping(1_000, 1_796_000_000_000_000_000L, 1.000_001);
        CaptureReplay.Request request = CaptureReplay.request(capture, Captures.ops(CAPTURE), Captures.names(CAPTURE),
                TestDevices.h200(), Map.of("run", "r7")).toBuilder().clock(clock).build();
        Path journal = dir.resolve("j");

        assertEquals(6, CaptureJournal.write(request, names, JournalOptions.to(journal)), "the buffers journaled");
        List<Buffer> journaled = new ArrayList<>();
        List<HostOp> opsRead = new ArrayList<>();
        JournalFacts facts = read(journal, opsRead, journaled);
        assertEquals("mixed.fltrbuf", facts.traceName());
        assertEquals(capture.toString(), facts.source());
        assertEquals("r7", facts.metadata().get("run"));
        assertEquals(ops.windowStartNs(), facts.startNs());
        assertEquals(ops.windowEndNs(), facts.stopNs());
        assertTrue(facts.ended());
        assertEquals(TestDevices.h200(), facts.devices());
        assertEquals(clock, facts.clock());
        assertEquals(names, facts.names());
        assertEquals(1, facts.vendor(), "the first buffer's");
        assertEquals(6, facts.buffers());
        assertEquals(ops.ops().size(), facts.ops());
        assertEquals(0, facts.invalidOps());

        assertEquals(written.size(), journaled.size());
        for (int i = 0; i < written.size(); i++) {
            assertEquals(written.get(i).vendor(), journaled.get(i).vendor(), "buffer " + i);
            assertArrayEquals(written.get(i).bytes(), journaled.get(i).bytes(), "buffer " + i);
        }
        assertEquals(ops.ops(), opsRead, "every op, in the ops file's order");
    }

    @Test
    void withoutOpsTheJournalHasNoWindowAndAnIdentityClockIsNotWritten() throws Exception {
        Path journal = dir.resolve("bare");
        CaptureReplay.Request request = CaptureReplay.request(Captures.capture(CAPTURE), null, null, List.of(), Map.of());
        assertEquals(5, CaptureJournal.write(request, Map.of(), JournalOptions.to(journal)));
        JournalFacts facts = read(journal, new ArrayList<>(), new ArrayList<>());
        assertEquals(JournalSchema.NO_TIME, facts.startNs());
        assertFalse(facts.stopped(), "no window end");
        assertTrue(facts.ended(), "closed all the same");
        assertEquals(0, facts.ops());
        assertEquals(Map.of(), facts.names());
        assertTrue(facts.clock().isIdentity());
        assertEquals(List.of(), facts.devices());
    }
}
