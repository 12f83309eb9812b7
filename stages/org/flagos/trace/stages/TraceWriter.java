package org.flagos.trace.stages;

import com.lmax.disruptor.EventHandler;
import org.flagos.trace.model.TraceRecord;

/**
 * The last stage: writes the trace file from vendor-neutral records. {@link ChromeTraceWriter}
 * writes torch-compatible JSON, {@link PerfettoTraceWriter} Perfetto's protobuf trace.
 */
public interface TraceWriter extends EventHandler<TraceRecord> {
    /** Declares that the capture has no host ops: per-op tables are then not kept. */
    void expectNoHostOps();

    /** Declares that no device or API record will come (a session without a tracer). */
    void expectNoDeviceRecords();

    /** Waits until the end-of-capture record was written (or writing failed). */
    void awaitFinished() throws InterruptedException;

    /** The op summary, available once the capture finished. */
    OpSummary summary();

    /** The first failure while writing, or null. */
    Throwable failure();

    /** Records, ops and flow ends written (the JSON's events less row labels and markers; a .pftrace's slices less the capture span). */
    long events();

    /** Every event the file holds, once the capture finished: {@link #events()} plus row labels and markers. */
    long traceEvents();
}
