package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The summary read back from flagtrace's own traces is the OpSummary the writer computed while
 * writing them, row for row, to the nanosecond: one rule ({@code stages/KeyAveragesRule}) in both.
 * Every op row, runtime-call row and device row: calls, CPU total, self CPU (the runtime calls an op
 * makes are its children in both), self device time and device total (a profiler-overhead event
 * inside an op is credited with the op's device time in both, as torch credits it).
 */
class FlagtraceTraceSummaryTest {
    @TempDir
    Path dir;

    static List<String> captures() {
        return Captures.EVERY;
    }

    @ParameterizedTest
    @MethodSource("captures")
    void agreesWithTheWritersOpSummary(String name) throws Exception {
        Path trace = dir.resolve(Captures.stem(name) + ".json");
        CaptureReplay.Result result;
        try (OutputStream out = Files.newOutputStream(trace)) {
            result = CaptureReplay.run(CaptureReplay.request(Captures.capture(name), Captures.ops(name), null, List.of(), Map.of()), out);
        }
        TraceFile file = TraceFile.read(trace);
        KeyAverages averages = KeyAverages.of(file);
        KeyAverages walk = KeyAverages.of(result.summary());
        assertTrue(result.summary().rows().size() > 0);
        assertEquals(averages.rows().size(), walk.rows().size(), name + ": rows");
        for (KeyAveragesRow op : walk.rows()) {
            KeyAveragesRow row = averages.row(op.name(), op.device());
            String what = name + " " + op.name() + (op.device() ? " (device)" : "");
            assertTrue(row != null, what);
            // to the ns: the trace's summary sums in torch's doubles, the walk whole nanoseconds
            assertEquals(op.count(), row.count(), what + ": calls");
            assertEquals(ns(op.cpuTotalUs()), ns(row.cpuTotalUs()), what + ": CPU total");
            assertEquals(ns(op.selfCpuUs()), ns(row.selfCpuUs()), what + ": self CPU");
            assertEquals(ns(op.selfDeviceUs()), ns(row.selfDeviceUs()), what + ": self device");
            assertEquals(ns(op.deviceTotalUs()), ns(row.deviceTotalUs()), what + ": device total");
            assertTrue(op.selfCpuUs() >= 0, what + ": self CPU negative");
        }
        assertEquals(result.accounting().decode().bindings(), (long) file.accounting().get("decoded.correlation_bindings"));
    }

    private static long ns(double us) {
        return Math.round(us * 1000);
    }
}
