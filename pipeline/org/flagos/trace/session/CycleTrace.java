package org.flagos.trace.session;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.ingest.CaptureSidecars;
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
 *
 * <p>With {@link ScheduleOptions#withBufferDumps()}, the cycle's buffer dump and its sidecars lie
 * beside it under the same provisional name, move with it to the trace's base name and are
 * deleted with it.
 */
public final class CycleTrace {
    private final int cycle;
    private final long firstStep;
    private final long lastStep;
    private final ProfilerSession session;
    private final String suffix;
    private Path path;
    private Path dump;
    private boolean moved;

    CycleTrace(int cycle, long firstStep, long lastStep, ProfilerSession session, Path path, Path dump, String suffix) {
        this.cycle = cycle;
        this.firstStep = firstStep;
        this.lastStep = lastStep;
        this.session = session;
        this.path = path;
        this.dump = dump;
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

    /** The cycle's buffer dump ({@code .fltrbuf}) where it is now, beside the trace; null without buffer dumps. */
    public Path dump() {
        return dump;
    }

    /** Every file of the cycle where it is now: the trace, and the dump with each sidecar written beside it. */
    public List<Path> files() {
        List<Path> out = new ArrayList<>();
        out.add(path);
        for (Path file : dumpFiles(dump)) {
            if (Files.exists(file)) {
                out.add(file);
            }
        }
        return out;
    }

    /**
     * Moves the trace to {@code target} (replacing a file there), by an atomic rename where the file
     * system allows; the trace is then the caller's, and kept. The buffer dump and its sidecars, when
     * the session dumps, move first to the target's base name (the name less {@link #suffix()}, or
     * less {@code .gz} and {@code .json}): {@code W.EPOCH.fltrbuf}, {@code W.EPOCH.ops.jsonl}, ...;
     * if any move fails, those already moved are moved back and the trace stays where it was. A
     * sidecar already at the new base name that this cycle did not write is then deleted, so that a
     * replay there reads only this cycle's files.
     */
    public Path moveTo(Path target) throws IOException {
        List<Path[]> done = new ArrayList<>();
        List<Path> stale = new ArrayList<>();
        Path newDump = dump == null ? null : target.resolveSibling(baseName(target.getFileName().toString()) + ".fltrbuf");
        try {
            if (dump != null) {
                List<Path> to = dumpFiles(newDump);
                List<Path> from = dumpFiles(dump);
                for (int i = 0; i < from.size(); i++) {
                    if (Files.exists(from.get(i))) {
                        move(from.get(i), to.get(i));
                        done.add(new Path[] {from.get(i), to.get(i)});
                    } else {
                        stale.add(to.get(i));
                    }
                }
            }
            move(path, target);
        } catch (IOException | RuntimeException e) {
            for (Path[] back : done) {
                try {
                    move(back[1], back[0]);
                } catch (IOException | RuntimeException again) {
                    e.addSuppressed(again);
                }
            }
            throw e;
        }
        path = target;
        dump = newDump;
        moved = true;
        for (Path other : stale) { // a replay of the dump would read it as this cycle's
            Files.deleteIfExists(other);
        }
        return target;
    }

    private static void move(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private String baseName(String file) {
        if (file.endsWith(suffix)) {
            return file.substring(0, file.length() - suffix.length());
        }
        String base = file.endsWith(".gz") ? file.substring(0, file.length() - 3) : file;
        return base.endsWith(".json") ? base.substring(0, base.length() - 5) : base;
    }

    /** The dump at {@code capture} and each place a sidecar of it may be written, in one order; empty for null. */
    private static List<Path> dumpFiles(Path capture) {
        List<Path> out = new ArrayList<>();
        if (capture == null) {
            return out;
        }
        out.add(capture);
        for (CaptureSidecars sidecar : CaptureSidecars.values()) {
            out.addAll(sidecar.places(capture));
        }
        return out;
    }

    /** Deletes the cycle's files where they are now, partial ones too (a completion that failed). */
    void deleteFiles() throws IOException {
        List<Path> all = new ArrayList<>();
        all.add(path);
        for (Path file : dumpFiles(dump)) {
            all.add(file);
            all.add(file.resolveSibling(file.getFileName() + ".partial"));
        }
        IOException first = null;
        for (Path file : all) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
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
