package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.capture.TraceFormat;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.tracefile.TraceFormatException;
import org.flagos.trace.tracefile.TraceLimits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link PerfettoTraceReader}: what it makes of a {@code .pftrace} (slices as complete events on the JSON trace's
 * rows, joined by External id), what it counts, and the table of malformed files ({@link MalformedPftraces}) refused
 * in the words the CLI prints. The whole-capture equality with the JSON trace is {@link PerfettoSummaryTest}'s.
 */
class PerfettoTraceReaderTest {
    @TempDir
    Path dir;

    static List<MalformedPftraces.Case> cases() throws IOException {
        return MalformedPftraces.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void readsOrRefusesEachCase(MalformedPftraces.Case c) throws Exception {
        Path file = c.build().write(dir);
        if (c.exit() == 0) {
            TraceFile t = TraceFile.read(file, TraceFile.DEFAULT_MAX_EVENTS, dir);
            assertEquals(2, t.events(), c.name());
            assertEquals(0, t.invalidEvents(), c.name());
        } else {
            TraceFormatException e = assertThrows(TraceFormatException.class, () -> TraceFile.read(file, TraceFile.DEFAULT_MAX_EVENTS, dir));
            assertEquals(file + " " + c.words(), e.getMessage(), c.name());
        }
    }

    /** The hand-made trace: an op on a thread track, its kernel on a stream track under "GPU 0", one External id. */
    @Test
    void slicesBecomeEventsOnTheJsonTracesRows() throws Exception {
        TraceFile t = TraceFile.read(Files.write(dir.resolve("v.pftrace"), MalformedPftraces.valid()), 100, dir);
        KeyAveragesRow mm = t.averages().row("aten::mm");
        assertEquals(1, mm.count());
        assertEquals(5.0, mm.cpuTotalUs(), 1e-9, "begin at 10 µs, end at 15 µs");
        assertEquals(2.0, mm.deviceTotalUs(), 1e-9, "the kernel's 2 µs joined to the op by its External id");
        KeyAveragesRow gemm = t.averages().row("gemm");
        assertEquals(2.0, gemm.selfDeviceUs(), 1e-9);
        List<DeviceStreams.Stream> streams = t.streams().streams();
        assertEquals(1, streams.size());
        assertEquals("0/7 2000", streams.get(0).pid() + "/" + streams.get(0).tid() + " " + streams.get(0).totalNs(),
                "stream 7 under GPU 0 is the JSON trace's pid 0, tid 7");
        assertEquals(1_000_010_000L, t.originNs(), "times are the packets' nanoseconds");
    }

    /** Every slice the reader cannot make an event of is counted: begun and never ended, ended and never begun. */
    @Test
    void unmatchedBeginsAndEndsAreCounted() throws Exception {
        MalformedPftraces.Pb[] v = MalformedPftraces.validPackets();
        // without the op's end: the op is begun, never ended
        TraceFile open = TraceFile.read(Files.write(dir.resolve("open.pftrace"), MalformedPftraces.trace(Arrays.copyOf(v, v.length - 1))), 100, dir);
        assertEquals(1, open.events());
        assertEquals(1, open.invalidEvents());
        // one more end on the thread than it has begins
        TraceFile extra = TraceFile.read(Files.write(dir.resolve("extra.pftrace"),
                MalformedPftraces.validAnd(MalformedPftraces.slice(1_000_016_000L, 2, 10, 0, 0, 0))), 100, dir);
        assertEquals(2, extra.events());
        assertEquals(1, extra.invalidEvents(), "the end without a begin");
    }

    @Test
    void tracksPastTheBoundAreRefusedInOneLine() throws Exception {
        MalformedPftraces.Pb many = new MalformedPftraces.Pb();
        for (int uuid = 1; uuid <= TraceLimits.MAX_TRACKS + 1; uuid++) {
            many.message(1, new MalformedPftraces.Pb().message(60, new MalformedPftraces.Pb().number(1, uuid)));
        }
        Path file = Files.write(dir.resolve("tracks.pftrace"), many.bytes());
        TraceFormatException e = assertThrows(TraceFormatException.class, () -> TraceFile.read(file, 100, dir));
        assertEquals(file + " holds more than 65536 tracks (threads, devices and streams)", e.getMessage());
        // one fewer is read: the bound is the count, not one short of it
        MalformedPftraces.Pb fewer = new MalformedPftraces.Pb().raw(MalformedPftraces.valid());
        for (int uuid = 100; uuid < 100 + TraceLimits.MAX_TRACKS - 3; uuid++) { // the valid trace has 3 tracks
            fewer.message(1, new MalformedPftraces.Pb().message(60, new MalformedPftraces.Pb().number(1, uuid)));
        }
        assertEquals(2, TraceFile.read(Files.write(dir.resolve("fewer.pftrace"), fewer.bytes()), 100, dir).events());
    }

    /** A real capture's .pftrace: every slice read, none invalid, the capture span a non-row, the same events as its JSON. */
    @Test
    void aBundledCapturesTraceIsReadWhole() throws Exception {
        String name = "h200-app-tiny2k";
        Path pf = dir.resolve("t.pftrace");
        Path json = dir.resolve("t.json");
        for (Map.Entry<Path, TraceFormat> out : Map.of(pf, TraceFormat.PERFETTO, json, TraceFormat.JSON).entrySet()) {
            try (OutputStream o = Files.newOutputStream(out.getKey())) {
                CaptureReplay.run(CaptureReplay.request(Captures.capture(name), Captures.ops(name), null, List.of(), Map.of())
                        .withFormat(out.getValue()), o);
            }
        }
        TraceFile p = TraceFile.read(pf, TraceFile.DEFAULT_MAX_EVENTS, dir);
        TraceFile j = TraceFile.read(json, TraceFile.DEFAULT_MAX_EVENTS, dir);
        assertEquals(0, p.invalidEvents());
        assertEquals(j.events(), p.events());
        assertEquals(j.otherEvents(), p.otherEvents(), "the capture span, in both");
        assertEquals(j.averages().rows(), p.averages().rows());
        // cut anywhere inside the last packet: refused, never read as a shorter trace
        byte[] whole = Files.readAllBytes(pf);
        Path cut = Files.write(dir.resolve("cut.pftrace"), Arrays.copyOf(whole, whole.length - 1));
        TraceFormatException e = assertThrows(TraceFormatException.class, () -> TraceFile.read(cut, TraceFile.DEFAULT_MAX_EVENTS, dir));
        assertEquals(cut + " ends in the middle of a packet (truncated?) at byte " + (whole.length - 1), e.getMessage());
    }
}
