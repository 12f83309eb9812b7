package org.flagos.trace.session;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.flagos.trace.stages.CaptureAccounting;
import org.flagos.trace.stages.OpSummary;

/**
 * The completed trace of one active cycle of a {@link ScheduledSession}, as its
 * {@link TraceReadyHandler} receives it: the file holds exactly the cycle's recorded steps
 * ({@code ProfilerStep#firstStep} to {@code ProfilerStep#lastStep}) and what they launched.
 *
 * <p>The file lies in the session's directory under a provisional hidden name until the handler
 * {@link #moveTo moves} it; a file the handler leaves there is deleted when it returns. Used by the
 * handler's thread only.
 */
public final class CycleTrace {
    private final int cycle;
    private final long firstStep;
    private final long lastStep;
    private final ProfilerSession session;
    private final String suffix;
    private Path path;
    private boolean moved;

    CycleTrace(int cycle, long firstStep, long lastStep, ProfilerSession session, Path path, String suffix) {
        this.cycle = cycle;
        this.firstStep = firstStep;
        this.lastStep = lastStep;
        this.session = session;
        this.path = path;
        this.suffix = suffix;
    }

    /** The cycle's number: 0 for the first cycle recorded in the session. */
    public int cycle() {
        return cycle;
    }

    /** The first recorded step's number (its op is {@code ProfilerStep#firstStep}). */
    public long firstStep() {
        return firstStep;
    }

    /** The last recorded step's number. */
    public long lastStep() {
        return lastStep;
    }

    /** Where the trace is now: its provisional name, or where {@link #moveTo} put it. */
    public Path path() {
        return path;
    }

    /**
     * The file name ending of the trace's format: {@code .pt.trace.json}, or {@code .pt.trace.json.gz}
     * when the session compresses; a new name for {@link #moveTo} should keep it.
     */
    public String suffix() {
        return suffix;
    }

    /** The op summary of the cycle (torch's {@code key_averages()} of the cycle's trace). */
    public OpSummary summary() {
        return session.summary();
    }

    /** Every count of the cycle: records kept and dropped (warmup's records count as outside the window). */
    public CaptureAccounting accounting() {
        return session.accounting();
    }

    /** Elements of the trace file's {@code traceEvents} array. */
    public long traceEvents() {
        return session.traceEvents();
    }

    /**
     * Moves the trace to {@code target} (replacing a file there), by an atomic rename where the file
     * system allows; the trace is then the caller's, and kept.
     */
    public Path moveTo(Path target) throws IOException {
        try {
            Files.move(path, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(path, target, StandardCopyOption.REPLACE_EXISTING);
        }
        path = target;
        moved = true;
        return target;
    }

    /** Copies the trace to {@code target} (replacing a file there). */
    public void copyTo(Path target) throws IOException {
        Files.copy(path, target, StandardCopyOption.REPLACE_EXISTING);
    }

    boolean moved() {
        return moved;
    }

    @Override
    public String toString() {
        return "cycle " + cycle + " (steps " + firstStep + "-" + lastStep + ")";
    }
}
