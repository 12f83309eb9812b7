package org.flagos.trace.ingest;

import org.flagos.trace.model.ExternalId;

/** Ops one at a time, in recorded order; holds at most the current op. */
public interface HostOpCursor extends AutoCloseable {
    /**
     * What {@link #next(long)} returns when no op is at hand yet and none still to come ends at or before the time asked:
     * a cursor over ops still arriving ({@code flagtrace run}'s stream); never an op.
     */
    HostOp NOT_YET = new HostOp("(not yet)", new ExternalId(0), HostOp.NO_THREAD, 0, 0);

    /** The next op, or null after the last. */
    HostOp next();

    /**
     * The next op, null after the last, or {@link #NOT_YET} when the ops are still arriving and none of those to come
     * ends at or before {@code endingByNs}. A cursor over a whole file or journal never says not yet.
     */
    default HostOp next(long endingByNs) {
        return next();
    }

    @Override
    void close();
}
