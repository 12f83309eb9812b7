package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.flagos.trace.cli.TestDevices;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.CaptureFormatException;
import org.flagos.trace.ingest.DevicePropertiesFile;
import org.flagos.trace.ingest.FltrbufFrames;
import org.flagos.trace.ingest.FltrbufWriter;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.ingest.ProcessFactsFile;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.flagos.trace.vendors.Vendors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CaptureReplay's own contract on the real h200-mt4 capture (five buffers): a file streamed gives the trace of its bytes in
 * memory and tells its progress frame by frame; frames with nothing to decode (empty, or of another vendor) are
 * skipped and counted in one note each, in file order and reordered alike; a capture of a vendor no decoder reads, one
 * of no buffer and one cut short; and what {@link CaptureReplay#request} finds beside a capture.
 */
class CaptureReplayTest {
    private static final String CAPTURE = "h200-mt4";
    private static final int CUPTI = 1;
    private static final int MSPTI = 2;
    private static final int NO_SUCH_VENDOR = 99;

    @TempDir
    Path dir;

    private static CaptureReplay.Request request(Path capture) {
        return CaptureReplay.request(capture, Captures.ops(CAPTURE), Captures.names(CAPTURE), TestDevices.h200(), Map.of());
    }

    private record Run(CaptureReplay.Result result, byte[] trace) {
    }

    private static Run run(CaptureReplay.Request request) throws InterruptedException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CaptureReplay.Result result = CaptureReplay.run(request, out);
        return new Run(result, out.toByteArray());
    }

    /** The frames of the bundled capture, each a copy, with their vendor. */
    private static List<CaptureReplay.Frame> frames() {
        List<CaptureReplay.Frame> out = new ArrayList<>();
        try (FltrbufFrames in = FltrbufFrames.open(Captures.capture(CAPTURE))) {
            while (in.next()) {
                out.add(new CaptureReplay.Frame(in.vendor(), ByteBuffer.allocate(in.payload().remaining()).put(in.payload()).flip()));
            }
        }
        return out;
    }

    /** Writes {@code frames} as a capture at {@code path} with flagtrace's own writer. */
    private static Path write(Path path, List<CaptureReplay.Frame> frames) throws Exception {
        try (FltrbufWriter w = new FltrbufWriter(path)) {
            for (CaptureReplay.Frame f : frames) {
                w.buffer(f.vendor(), f.payload().duplicate());
            }
        }
        return path;
    }

    @Test
    void aFileStreamedGivesTheTraceOfItsBytesAndTellsItsProgressFrameByFrame() throws Exception {
        Path file = Captures.capture(CAPTURE);
        CaptureReplay.Request streamed = request(file);
        List<Long> progress = new ArrayList<>();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CaptureReplay.Result result = CaptureReplay.run(streamed, out, progress::add);
        Run inMemory = run(streamed.toBuilder().file(null).capture(CaptureBytes.load(file)).build());
        assertEquals(new String(inMemory.trace()), out.toString(), "the same trace from the file and from its bytes");
        assertEquals(inMemory.result().events(), result.events());
        assertTrue(result.events() > 2_000, "events " + result.events());
        assertNull(result.truncation());

        assertEquals(frames().size(), progress.size(), "one report a frame");
        for (int i = 1; i < progress.size(); i++) {
            assertTrue(progress.get(i) > progress.get(i - 1), "frame " + i + ": " + progress);
        }
        assertEquals(Files.size(file), progress.get(progress.size() - 1), "the whole file read");
    }

    @Test
    void framesWithNothingToDecodeAreSkippedAndCountedOneNoteEach() throws Exception {
        List<CaptureReplay.Frame> real = frames();
        List<CaptureReplay.Frame> mixed = new ArrayList<>();
        mixed.add(new CaptureReplay.Frame(MSPTI, ByteBuffer.allocate(0))); // empty: the capture's vendor is the first with bytes
        mixed.addAll(real.subList(0, real.size() / 2));
        mixed.add(new CaptureReplay.Frame(MSPTI, ByteBuffer.allocate(100)));
        mixed.add(new CaptureReplay.Frame(NO_SUCH_VENDOR, ByteBuffer.allocate(7)));
        mixed.add(new CaptureReplay.Frame(CUPTI, ByteBuffer.allocate(0)));
        mixed.add(new CaptureReplay.Frame(MSPTI, ByteBuffer.allocate(60)));
        mixed.addAll(real.subList(real.size() / 2, real.size()));
        Path path = write(dir.resolve("mixed.fltrbuf"), mixed);
        Run plain = run(request(Captures.capture(CAPTURE)));
        for (UnaryOperator<List<CaptureReplay.Frame>> order : List.of(CaptureReplay.IN_FILE_ORDER,
                (UnaryOperator<List<CaptureReplay.Frame>>) f -> { // the capture's buffers last to first, then the others
                    List<CaptureReplay.Frame> r = new ArrayList<>(f);
                    Collections.reverse(r);
                    r.sort(java.util.Comparator.comparing(frame -> frame.vendor() != CUPTI));
                    return r;
                })) {
            String what = order == CaptureReplay.IN_FILE_ORDER ? "in file order" : "reordered";
            Run skipped = run(request(path).toBuilder().frameOrder(order).build());
            assertEquals(plain.result().events(), skipped.result().events(), what);
            assertEquals(plain.result().summary().table(), skipped.result().summary().table(), what);
            List<String> notes = skipped.result().accounting().notes();
            assertTrue(notes.contains(path + ": 2 empty frames (a 16-byte header declaring no payload: zero padding or damage)"
                    + " skipped; no record was in them"), what + ": " + notes);
            assertTrue(notes.contains(path + ": 2 frames of " + Vendors.dumpVendorName(MSPTI) + " in a "
                    + Vendors.dumpVendorName(CUPTI) + " capture skipped (160 bytes)"), what + ": " + notes);
            assertTrue(notes.contains(path + ": 1 frame of unknown vendor 99 in a " + Vendors.dumpVendorName(CUPTI)
                    + " capture skipped (7 bytes)"), what + ": " + notes);
        }
    }

    @Test
    void aCaptureOfAVendorNoDecoderReadsIsRefusedBeforeAnythingIsWritten() throws Exception {
        Path path = write(dir.resolve("foreign.fltrbuf"), List.of(new CaptureReplay.Frame(NO_SUCH_VENDOR, ByteBuffer.allocate(32))));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CaptureFormatException e = assertThrows(CaptureFormatException.class,
                () -> CaptureReplay.run(CaptureReplay.request(path, null, null, List.of(), Map.of()), out));
        assertEquals(path + ": frames of unknown vendor 99 but this build has no decoder for it", e.getMessage());
        assertEquals(0, out.size());
    }

    @Test
    void aCaptureOfNoBufferIsATraceOfNoEventWithANote() throws Exception {
        Path magicOnly = write(dir.resolve("magic.fltrbuf"), List.of());
        Path emptyFrames = write(dir.resolve("empty.fltrbuf"), List.of(new CaptureReplay.Frame(CUPTI, ByteBuffer.allocate(0)),
                new CaptureReplay.Frame(NO_SUCH_VENDOR, ByteBuffer.allocate(0))));
        for (Path path : List.of(magicOnly, emptyFrames)) {
            Run run = run(CaptureReplay.request(path, null, null, List.of(), Map.of()));
            assertEquals(0, run.result().events(), path.toString());
            assertEquals(0, run.result().summary().rows().size());
            assertTrue(TraceJson.MAPPER.readTree(run.trace()).get("traceEvents").isArray(), "a trace all the same");
            assertTrue(run.result().accounting().notes().contains(path + ": the capture holds no activity buffer (nothing after"
                    + " its magic but empty frames, if any)"), run.result().accounting().notes().toString());
        }
    }

    @Test
    void aCaptureCutShortKeepsEveryWholeRecordBeforeTheCut() throws Exception {
        byte[] whole = Files.readAllBytes(Captures.capture(CAPTURE));
        Path cut = Files.write(dir.resolve("cut.fltrbuf"), java.util.Arrays.copyOf(whole, whole.length / 2));
        Run all = run(request(Captures.capture(CAPTURE)));
        Run half = run(request(cut));
        assertTrue(half.result().truncated());
        assertTrue(half.result().events() > 0 && half.result().events() < all.result().events(),
                half.result().events() + " of " + all.result().events());
        assertTrue(half.result().accounting().notes().contains(cut + ": " + half.result().truncation()
                + "; every whole record before the cut was kept"), half.result().accounting().notes().toString());
    }

    @Test
    void requestChecksTheMagicFirstAndTakesWhatLiesBesideTheCapture() throws Exception {
        Path text = Files.writeString(dir.resolve("t.fltrbuf"), "{\"traceEvents\": []}");
        assertThrows(CaptureFormatException.class, () -> CaptureReplay.request(text, null, null, List.of(), Map.of()));

        String steps = "h200-java-steps/h200-java-steps";
        Path capture = Captures.capture(steps);
        CaptureReplay.Request r = CaptureReplay.request(capture, null, null, List.of(), Map.of("k", "v"));
        assertEquals(capture, r.file());
        assertEquals(capture.toString(), r.source());
        assertEquals("h200-java-steps.fltrbuf.gz", r.traceName());
        assertNull(r.ops(), "no ops unless named");
        assertEquals(DevicePropertiesFile.read(Captures.dir().resolve(steps + ".devices.json")), r.devices());
        assertEquals(ProcessFactsFile.read(Captures.dir().resolve(steps + ".process.json")), r.process());
        for (Map.Entry<Long, String> name : KernelNameFile.read(Captures.names(steps)).entries().entrySet()) {
            assertEquals(name.getValue(), r.kernelNames().lookup(name.getKey()), "the names beside it");
        }
        assertEquals(DeviceClockMapping.IDENTITY, r.clock(), "no clock file beside it");
        assertEquals(Map.of("k", "v"), r.metadata());
        assertEquals(TestDevices.h200(), CaptureReplay.request(capture, null, null, TestDevices.h200(), Map.of()).devices(),
                "devices given win over those beside it");
    }
}
