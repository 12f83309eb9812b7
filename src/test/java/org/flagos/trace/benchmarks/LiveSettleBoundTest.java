package org.flagos.trace.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.flagos.trace.session.OpScope;
import org.flagos.trace.session.Profiler;
import org.flagos.trace.session.ProfilerSession;
import org.flagos.trace.session.SessionOptions;
import org.flagos.trace.stages.CaptureAccounting;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Live sessions whose records are CUPTI 13.0's, in CUPTI-sized 1 MiB buffers decoded by the CUPTI
 * decoder ({@link SyntheticMemsetTracer}), settling ops under the tracer's bound: each op launches one
 * memset filled with its External id's low byte, so the trace itself shows which op a memset is on.
 * Whatever the bound, and however the stages are scheduled, every memset is drawn on its own op, and
 * each one's microsecond is either in the ops' device total or counted (after its op settled, or
 * without op).
 */
class LiveSettleBoundTest {
    private static final int OPS = 30_000;
    private static final String PROPERTY = "flagtrace.opSettleRecords";

    @TempDir
    Path dir;

    @Test
    void underTheTracersBoundEveryMemsetIsOnItsOpAndAccountedFor() throws Exception {
        CaptureAccounting counts = session(dir.resolve("declared.json"), null);
        assertTrue(counts.opSettleRecords() >= 32_768, "CUPTI's bound (1 MiB / 32 B), or grown past records seen late: "
                + counts.opSettleRecords());
        assertEquals(0, counts.recordsAfterOpSettled(), "one launching thread: no record comes after its op settled");
    }

    /**
     * A bound far below what the tracer delivers late grows to cover it: with one launching thread a
     * record trails the previous op's by at most 3 records (binding, call, memset), so each lateness
     * seen is within the bound the last one set (it plus the declared bound) and none comes after its
     * op settled. Records that do (other threads' buffers) are counted: HostOpLedgerTest, TraceWalkTest.
     */
    @Test
    void aBoundBelowTheTracersLatenessGrowsToCoverIt() throws Exception {
        CaptureAccounting counts = session(dir.resolve("tiny.json"), "64");
        assertTrue(counts.opSettleRecords() > 6_800, "grown past a buffer's lateness (6,898 launches of 3 records"
                + " fill one): " + counts.opSettleRecords());
        assertEquals(0, counts.recordsAfterOpSettled());
    }

    private static CaptureAccounting session(Path trace, String bound) throws Exception {
        String saved = System.getProperty(PROPERTY);
        if (bound != null) {
            System.setProperty(PROPERTY, bound);
        }
        SyntheticMemsetTracer tracer = new SyntheticMemsetTracer();
        ProfilerSession session;
        try {
            session = Profiler.start(tracer, SessionOptions.to(trace));
        } finally {
            if (saved == null) {
                System.clearProperty(PROPERTY);
            } else {
                System.setProperty(PROPERTY, saved);
            }
        }
        for (int i = 0; i < OPS; i++) {
            try (OpScope op = session.op("aten::fill_")) {
                tracer.launchOne((int) (op.externalId() & 0xff));
            }
        }
        session.close();
        CaptureAccounting counts = session.accounting();
        TraceMemsetCheck inTrace = TraceMemsetCheck.of(trace);
        assertEquals(OPS, inTrace.memsets, "every memset drawn with an External id");
        assertEquals(0, inTrace.misattributed, "first: " + inTrace.first);
        double attributedUs = session.summary().row("aten::fill_").deviceTimeTotalUs();
        long counted = counts.recordsAfterOpSettled() + counts.deviceRecordsWithoutOp();
        assertTrue(attributedUs <= OPS + 1e-6 && attributedUs + counted >= OPS - 1e-6,
                attributedUs + " µs of memsets in ops, " + counted + " records counted late or without op, of " + OPS);
        return counts;
    }
}
