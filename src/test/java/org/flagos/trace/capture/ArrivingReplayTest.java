package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.lmax.disruptor.EventTranslatorOneArg;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.flagos.trace.cli.TestDevices;
import org.flagos.trace.ingest.FltrbufFrames;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.ingest.HostOpCursor;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.ingest.OpsJsonlFile;
import org.flagos.trace.ingest.OpsJsonlReader;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.vendors.Vendors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A capture replayed as it arrives equals its whole replay, byte for byte, on real H200 captures fed as {@code flagtrace
 * run}'s stream feeds them (each buffer after the ops that ended by its records and a tick that vouches for them, names
 * first); and where it went on before something arrived (an op ending before records that went on without it, a kernel
 * name the table gives only at the close, a window closing before a record it kept, an empty window) it says why the
 * capture must be replayed whole, as it does when it gives up or no buffer came.
 */
class ArrivingReplayTest {
    private static final Map<String, String> END = Map.of("flagtrace_run_end", "stop", "flagtrace_run_buffers", "5");
    private final ExecutorService replaying = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() throws InterruptedException {
        replaying.shutdownNow();
        assertTrue(replaying.awaitTermination(10, TimeUnit.SECONDS));
    }

    /** A bundled capture's frames, ops (file order), names, devices and window, and each frame's latest record end. */
    private record Capture(String name, Path file, List<byte[]> frames, List<Long> latestEnds, List<HostOp> ops, KernelNameFile names,
                           List<DeviceProperties> devices, long windowStart, long windowEnd) {
        static Capture of(String name) {
            Path file = Captures.capture(name);
            KernelNameFile names = KernelNameFile.read(Captures.names(name));
            List<DeviceProperties> devices = TestDevices.h200();
            List<byte[]> frames = new ArrayList<>();
            List<Long> ends = new ArrayList<>();
            var decoder = Vendors.decoderFor(1).create(KernelNames.NONE, new NameTable(), devices, DeviceClockMapping.IDENTITY);
            long[] latest = {Long.MIN_VALUE};
            TraceRecord scratch = new TraceRecord();
            RecordSink sink = new RecordSink() {
                @Override
                public <A> void publish(EventTranslatorOneArg<TraceRecord, A> translator, A source) {
                    scratch.clear();
                    translator.translateTo(scratch, 0, source);
                    if (scratch.type == RecordType.ACTIVITY) {
                        latest[0] = Math.max(latest[0], scratch.endNs);
                    }
                }
            };
            try (FltrbufFrames in = FltrbufFrames.open(file)) {
                while (in.next()) {
                    byte[] bytes = new byte[in.payload().remaining()];
                    in.payload().duplicate().get(bytes);
                    frames.add(bytes);
                    decoder.decode(ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN), sink, new DecodeStats());
                    ends.add(latest[0]);
                }
            }
            OpsJsonlFile opsFile = OpsJsonlReader.scan(Captures.ops(name));
            List<HostOp> ops = new ArrayList<>();
            try (HostOpCursor c = opsFile.cursor()) {
                for (HostOp op; (op = c.next()) != null; ) {
                    ops.add(op);
                }
            }
            return new Capture(name, file, frames, ends, ops, names, devices, opsFile.windowStartNs(), opsFile.windowEndNs());
        }

        /** The whole capture's replay, with the window's end fields. */
        byte[] replayedWhole() throws InterruptedException {
            return replayedWhole(windowEnd);
        }

        /** The whole capture's replay, its window ending at {@code end}. */
        byte[] replayedWhole(long end) throws InterruptedException {
            CaptureReplay.Request request = CaptureReplay.request(file, Captures.ops(name),
                    null, devices, Map.of()).toBuilder().endFacts(END).build();
            org.flagos.trace.ingest.HostOpSource ops = request.ops();
            request = request.toBuilder().ops(new org.flagos.trace.ingest.HostOpSource() {
                @Override
                public long windowStartNs() {
                    return ops.windowStartNs();
                }

                @Override
                public long windowEndNs() {
                    return end;
                }

                @Override
                public List<String> warnings() {
                    return ops.warnings();
                }

                @Override
                public HostOpCursor cursor() {
                    return ops.cursor();
                }
            }).build();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            CaptureReplay.run(request, out);
            return out.toByteArray();
        }
    }

    private ArrivingReplay arriving(Capture c) {
        return new ArrivingReplay(c.file(), c.windowStart(), null, c::devices, 128L << 20);
    }

    private Future<ArrivingReplay.Outcome> start(ArrivingReplay replay, ByteArrayOutputStream out) {
        return replaying.submit(() -> replay.run(out));
    }

    private static ArrivingReplay.Closing closing(Capture c, long windowEnd, KernelNames written) {
        return new ArrivingReplay.Closing(windowEnd, List.of(), new LinkedHashMap<>(END), written, () -> false);
    }

    /**
     * Feeds the capture as the injected library sends it: every name first; before each buffer, the ops (in the file's
     * order) that ended by its records, and a tick no later than the earliest end of any op still to come.
     */
    private static void feedAsTheLibrary(ArrivingReplay replay, Capture c) {
        c.names().entries().forEach(replay::name);
        long[] earliestFrom = new long[c.ops().size() + 1];
        earliestFrom[c.ops().size()] = Long.MAX_VALUE;
        for (int i = c.ops().size() - 1; i >= 0; i--) {
            earliestFrom[i] = Math.min(earliestFrom[i + 1], c.ops().get(i).endNs());
        }
        int sent = 0;
        for (int f = 0; f < c.frames().size(); f++) {
            long by = c.latestEnds().get(f);
            while (sent < c.ops().size() && c.ops().get(sent).endNs() <= by) {
                replay.op(c.ops().get(sent++));
            }
            replay.tick(Math.min(by, earliestFrom[sent] - 1));
            replay.frame(1, c.frames().get(f));
        }
        while (sent < c.ops().size()) {
            replay.op(c.ops().get(sent++));
        }
    }

    @Test
    void fedAsItArrivesItWritesTheWholeReplaysTraceByteForByte() throws Exception {
        for (String name : List.of("h200-java-parity", "h200-mt4")) {
            Capture c = Capture.of(name);
            ArrivingReplay replay = arriving(c);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            Future<ArrivingReplay.Outcome> outcome = start(replay, out);
            feedAsTheLibrary(replay, c);
            replay.close(closing(c, c.windowEnd(), c.names()));
            ArrivingReplay.Outcome o = outcome.get(60, TimeUnit.SECONDS);
            assertNull(o.replayWhole(), name);
            assertTrue(o.result().events() > 1_000, name + ": events " + o.result().events());
            String whole = new String(c.replayedWhole(), StandardCharsets.UTF_8);
            assertEquals(whole, out.toString(StandardCharsets.UTF_8), name + ": the trace is the whole replay's");
            assertTrue(whole.contains("\"flagtrace_run_end\":\"stop\""), "the window's end, after the events");
        }
    }

    @Test
    void anOpEndingBeforeRecordsThatWentOnWithoutItSpoilsIt() throws Exception {
        Capture c = Capture.of("h200-java-parity");
        ArrivingReplay replay = arriving(c);
        Future<ArrivingReplay.Outcome> outcome = start(replay, new ByteArrayOutputStream());
        c.names().entries().forEach(replay::name);
        c.ops().forEach(replay::op);
        replay.tick(Long.MAX_VALUE); // vouches for every op: none is still to come
        c.frames().forEach(f -> replay.frame(1, f));
        while (replay.framesWaiting() > 0) {
            Thread.sleep(5);
        }
        // ...but one more comes, ending at the window's start: records ending later went on without it.
        replay.op(new HostOp("late", new ExternalId(1L << 40), 1, c.windowStart(), c.windowStart()));
        replay.close(closing(c, c.windowEnd(), c.names()));
        String why = outcome.get(60, TimeUnit.SECONDS).replayWhole();
        assertNotNull(why);
        assertTrue(why.contains("went on without it"), why);
    }

    @Test
    void aNameTheTableGivesOnlyAtTheCloseSpoilsIt() throws Exception {
        Capture c = Capture.of("h200-java-parity");
        ArrivingReplay replay = arriving(c);
        Future<ArrivingReplay.Outcome> outcome = start(replay, new ByteArrayOutputStream());
        c.ops().forEach(replay::op);
        c.frames().forEach(f -> replay.frame(1, f)); // no name sent before the buffers
        replay.close(closing(c, c.windowEnd(), c.names()));
        String why = outcome.get(60, TimeUnit.SECONDS).replayWhole();
        assertEquals("a kernel name arrived after a buffer that names it", why);
    }

    /**
     * A window that closes before records it may already have kept: either the records the pipeline had kept end after
     * the close (the capture is then replayed whole), or the bound reached them in time and the trace is the whole
     * replay's with that end. Given time to keep them first, it is the former.
     */
    @Test
    void aWindowClosingBeforeARecordItKeptIsReplayedWholeOrBoundedAsAReplay() throws Exception {
        Capture c = Capture.of("h200-java-parity");
        ArrivingReplay replay = arriving(c);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Future<ArrivingReplay.Outcome> outcome = start(replay, out);
        feedAsTheLibrary(replay, c);
        while (replay.framesWaiting() > 0) {
            Thread.sleep(5);
        }
        Thread.sleep(200);
        long end = c.latestEnds().get(c.latestEnds().size() - 1) - 1_000_000;
        replay.close(closing(c, end, c.names()));
        String why = outcome.get(60, TimeUnit.SECONDS).replayWhole();
        if (why != null) {
            assertTrue(why.contains("after the window's end " + end), why);
        } else {
            assertEquals(new String(c.replayedWhole(end), StandardCharsets.UTF_8), out.toString(StandardCharsets.UTF_8));
        }
    }

    /**
     * A window that ends where it starts is replayed whole, and the reason given is the whole replay's own warning for
     * that window (a note of its trace), not ops outside the window: here no op arrived at all.
     */
    @Test
    void anEmptyWindowIsReplayedWholeSayingSoInTheWholeReplaysWords(@TempDir Path dir) throws Exception {
        Capture c = Capture.of("h200-java-parity");
        long at = Math.max(c.windowEnd(), Collections.max(c.latestEnds())) + 1_000_000_000L; // after every record: none kept
        ArrivingReplay replay = new ArrivingReplay(c.file(), at, null, c::devices, 128L << 20);
        Future<ArrivingReplay.Outcome> outcome = start(replay, new ByteArrayOutputStream());
        c.names().entries().forEach(replay::name);
        c.frames().forEach(f -> replay.frame(1, f));
        replay.close(closing(c, at, c.names()));
        String why = outcome.get(60, TimeUnit.SECONDS).replayWhole();
        assertEquals("the capture window is empty (window_start equals window_end)", why);

        Path ops = dir.resolve("empty.ops.jsonl");
        Files.writeString(ops, "{\"window_start\":" + at + "}\n{\"window_end\":" + at + "}\n");
        CaptureReplay.Result whole = CaptureReplay.run(CaptureReplay.request(c.file(), ops, null, c.devices(), Map.of()),
                new ByteArrayOutputStream());
        assertTrue(whole.accounting().notes().contains(why), "the whole replay's notes: " + whole.accounting().notes());
    }

    @Test
    void givenUpOrWithoutABufferTheCaptureIsReplayedWhole() throws Exception {
        Capture c = Capture.of("h200-java-parity");
        ArrivingReplay empty = arriving(c);
        Future<ArrivingReplay.Outcome> none = start(empty, new ByteArrayOutputStream());
        empty.close(closing(c, c.windowEnd(), c.names()));
        assertEquals("no buffer arrived", none.get(60, TimeUnit.SECONDS).replayWhole());

        ArrivingReplay behind = arriving(c);
        Future<ArrivingReplay.Outcome> given = start(behind, new ByteArrayOutputStream());
        behind.frame(1, c.frames().get(0));
        behind.giveUp("the replay fell 300 MB behind the stream");
        behind.frame(1, c.frames().get(1)); // after giving up it holds nothing more
        assertEquals("the replay fell 300 MB behind the stream", given.get(60, TimeUnit.SECONDS).replayWhole());
        assertEquals(0, behind.framesWaiting());

        // Bounded: past what it may hold waiting (here less than two buffers) it gives up by itself and holds nothing.
        ArrivingReplay bounded = new ArrivingReplay(c.file(), c.windowStart(), null, c::devices, c.frames().get(0).length + 1);
        Future<ArrivingReplay.Outcome> over = start(bounded, new ByteArrayOutputStream());
        c.ops().forEach(bounded::op);
        c.frames().forEach(f -> bounded.frame(1, f));
        bounded.close(closing(c, c.windowEnd(), c.names()));
        String why = over.get(60, TimeUnit.SECONDS).replayWhole();
        assertNotNull(why);
        assertTrue(why.endsWith("behind the stream"), why);
        assertEquals(0, bounded.framesWaiting());
    }
}
