package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.capture.TraceFormat;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * flagtrace's {@code .pftrace} summarised: every bundled capture replayed to JSON and to Perfetto's
 * protobuf gives the same table (rows, their order and every number), the same event count and
 * the same device streams.
 */
class PerfettoSummaryTest {
    @TempDir
    Path dir;

    /**
     * Every bundled capture. In h200-java-parity-wide-tid the main thread's vendor id (2793404096)
     * does not fit Perfetto's 32-bit tid: its track is named, then renamed "main" when the thread's
     * name arrives, and its ops must still nest with its calls.
     */
    static List<String> captures() {
        return Captures.EVERY;
    }

    Path replay(String name, TraceFormat format, String suffix) throws Exception {
        Path trace = dir.resolve(Captures.stem(name) + suffix);
        try (OutputStream out = Files.newOutputStream(trace)) {
            CaptureReplay.run(CaptureReplay.request(Captures.capture(name), Captures.ops(name), null, List.of(), Map.of())
                    .withFormat(format), out);
        }
        return trace;
    }

    @ParameterizedTest
    @MethodSource("captures")
    void theSameTableAsTheJsonTrace(String name) throws Exception {
        TraceFile json = TraceFile.read(replay(name, TraceFormat.JSON, ".json"));
        Path pf = replay(name, TraceFormat.PERFETTO, ".pftrace");
        assertEquals(0x0A, Files.readAllBytes(pf)[0], "a protobuf packet first");
        TraceFile perfetto = TraceFile.read(pf);
        assertTrue(json.averages().rows().size() > 2, name);
        assertEquals(json.averages().rows(), perfetto.averages().rows(), name + ": every row");
        assertEquals(json.events(), perfetto.events());
        assertEquals(json.invalidEvents(), perfetto.invalidEvents());
        assertEquals(json.averages().deviceLabel(), perfetto.averages().deviceLabel());
        assertEquals(KeyAveragesTable.render(json.averages(), SortKey.SELF_DEVICE_TIME_TOTAL, -1),
                KeyAveragesTable.render(perfetto.averages(), SortKey.SELF_DEVICE_TIME_TOTAL, -1));
        List<DeviceStreams.Stream> a = json.streams().streams();
        List<DeviceStreams.Stream> b = perfetto.streams().streams();
        assertEquals(a.size(), b.size());
        for (int i = 0; i < a.size(); i++) {
            assertEquals(a.get(i).pid() + "/" + a.get(i).tid() + " " + a.get(i).totalNs(), b.get(i).pid() + "/" + b.get(i).tid() + " " + b.get(i).totalNs());
        }
    }
}
