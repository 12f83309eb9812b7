package org.flagos.trace.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.file.Path;
import org.flagos.trace.report.KeyAverages;
import org.flagos.trace.report.KeyAveragesRow;
import org.flagos.trace.report.TraceFile;
import org.flagos.trace.tracefile.TraceFormatException;

/**
 * Fuzz target: any file given to {@code summary} or {@code report}, through
 * {@link TraceFile#read(Path, long, Path)} (JSON in either torch schema, gzip, or {@code .pftrace};
 * a scratch file under {@code target/}, spilling there too). Bad content must be a
 * {@link TraceFormatException}; a trace that reads must give a table with no negative or NaN time
 * and no negative call count.
 *
 * <p>Seeds: {@code src/test/resources/org/flagos/trace/fuzz/TraceFileFuzzTestInputs/read/}.
 */
class TraceFileFuzzTest {
    private static final Path FILE = FuzzScratch.file("fuzz.trace");
    private static final Path SPILL = FILE.getParent();

    @FuzzTest(maxDuration = "3m")
    void read(byte[] file) throws IOException {
        TraceFile trace;
        try {
            trace = TraceFile.read(FuzzScratch.write(FILE, file), 100_000, SPILL);
        } catch (TraceFormatException expected) {
            return;
        }
        for (KeyAveragesRow r : KeyAverages.of(trace).rows()) {
            double[] times = {r.selfCpuUs(), r.cpuTotalUs(), r.selfDeviceUs(), r.deviceTotalUs()};
            for (double t : times) {
                if (!(t >= -1e-6) || Double.isInfinite(t)) {
                    throw new IllegalStateException("row " + r.name() + " has time " + t);
                }
            }
            if (r.count() <= 0) {
                throw new IllegalStateException("row " + r.name() + " has " + r.count() + " calls");
            }
        }
    }
}
