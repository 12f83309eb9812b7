package org.flagos.trace.session;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Called once per completed active cycle of a {@link ScheduledSession}, as torch.profiler's
 * {@code on_trace_ready}. It runs on the session's one trace-ready thread, in cycle order, while the
 * program's next steps proceed; a handler that throws is reported in one line on stderr and in
 * {@link ScheduledSession#failures()}, and the next cycles go on.
 */
@FunctionalInterface
public interface TraceReadyHandler {
    /** Takes the cycle's completed trace; move it to keep it ({@link CycleTrace#moveTo}). */
    void onTraceReady(CycleTrace trace) throws Exception;

    /**
     * torch's {@code tensorboard_trace_handler(dir)}: each cycle's trace becomes
     * {@code DIR/WORKER.EPOCH_NS.pt.trace.json} (or {@code .pt.trace.json.gz}), where the worker is
     * {@code HOSTNAME_PID} and {@code EPOCH_NS} the wall clock in nanoseconds when the trace is
     * handed over, as torch 2.x names them (TensorBoard's profiler plugin reads these names). The
     * directory is created if missing.
     */
    static TraceReadyHandler tensorboard(Path dir) {
        return tensorboard(dir, TensorBoardNames.defaultWorker());
    }

    /** As {@link #tensorboard(Path)}, naming the worker (unique per process in a distributed job). */
    static TraceReadyHandler tensorboard(Path dir, String workerName) {
        if (workerName == null || workerName.isEmpty() || workerName.contains("/")) {
            throw new IllegalArgumentException("tensorboard handler: the worker name must be a non-empty file name part, was "
                    + (workerName == null ? "null" : "'" + workerName + "'"));
        }
        return trace -> {
            try {
                Files.createDirectories(dir);
            } catch (IOException e) {
                throw new IOException("can't create directory " + dir + ": " + e.getMessage(), e);
            }
            trace.moveTo(TensorBoardNames.next(dir, workerName, trace.suffix()));
        };
    }
}
