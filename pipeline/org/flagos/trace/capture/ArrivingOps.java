package org.flagos.trace.capture;

import java.util.List;
import java.util.function.Consumer;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.ingest.HostOpCursor;
import org.flagos.trace.ingest.HostOpSource;
import org.flagos.trace.ingest.IdRuns;

/**
 * An {@link ArrivingReplay}'s ops, read by its replay as an ops file's are ({@link #source()}): the window's start
 * known, its end the close's (the window filter learns it then). An op that the replay went on without, or that the whole replay would
 * refuse or warn about (a shared id, an op ending before the window), spoils it.
 */
final class ArrivingOps implements HostOpCursor {
    private final ArrivingQueue<HostOp> ops;
    private final long windowStartNs;
    /** Frames that wait for the first op beyond this: the ops are taken to start later (checked at the end). */
    private final long firstOpWaitBytes;
    private final Consumer<String> spoil;
    // The replay's thread only.
    private long latestStartNs = Long.MIN_VALUE;
    private final IdRuns ids = new IdRuns();

    /**
     * @param firstOpWaitBytes what frames may wait for the first op
     * @param spoil            told each reason the replay's result may differ from the whole capture's
     */
    ArrivingOps(Arrivals arrivals, long windowStartNs, long firstOpWaitBytes, Consumer<String> spoil) {
        this.ops = new ArrivingQueue<>(arrivals);
        this.windowStartNs = windowStartNs;
        this.firstOpWaitBytes = firstOpWaitBytes;
        this.spoil = spoil;
    }

    /** An op, as the ops file holds it. */
    void add(HostOp op) {
        ops.add(op);
    }

    /** Ops that arrived and were not taken (under the lock). */
    long notTaken() {
        return ops.notTaken();
    }

    /** The latest start of an op taken. */
    long latestStartNs() {
        return latestStartNs;
    }

    /** Whether the ops' ids were too scattered to check for duplicates as they arrived. */
    boolean idsUnchecked() {
        return ids.givenUp() > 0;
    }

    /** The ops as the replay reads them: the window's end unknown until the close, no warning, this cursor. */
    HostOpSource source() {
        return new Source(windowStartNs, Long.MAX_VALUE, List.of(), this);
    }

    private record Source(long windowStartNs, long windowEndNs, List<String> warnings, HostOpCursor cursor) implements HostOpSource {
    }

    /**
     * The first ops, before any record: awaited, as far as {@link #firstOpWaitBytes} of frames. None then: the ops are
     * taken to come after the first records, and one arriving later is counted at the end.
     */
    @Override
    public HostOp next() {
        return checked(ops.first(firstOpWaitBytes));
    }

    @Override
    public HostOp next(long endingByNs) {
        return checked(ops.next(endingByNs, NOT_YET));
    }

    private HostOp checked(HostOp op) {
        if (op == null || op == NOT_YET) {
            return op;
        }
        if (op.endNs() <= ops.notYetNs()) {
            spoil.accept("an op ending at " + op.endNs() + " arrived after records ending at " + ops.notYetNs()
                    + " went on without it");
        }
        if (!ids.add(op.externalId().value())) {
            spoil.accept("two ops share the External id " + op.externalId().value());
        }
        if (op.endNs() < windowStartNs) {
            spoil.accept("ops lie outside the window");
        }
        latestStartNs = Math.max(latestStartNs, op.startNs());
        return op;
    }

    @Override
    public void close() {
    }
}
