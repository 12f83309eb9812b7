package org.flagos.trace.ingest;

/** Marks one at a time, in recorded order (a {@code .marks.jsonl} file, or a journal's mark documents); holds at most the current mark. */
public interface HostMarkCursor extends AutoCloseable {
    /** What {@link #next(long)} returns when no mark is at hand yet and none still to come is at or before the time asked. */
    HostMark NOT_YET = new HostMark("(not yet)", null, 0, 0, 0);

    /** The next mark, or null after the last. */
    HostMark next();

    /**
     * The next mark, null after the last, or {@link #NOT_YET} when the marks are still arriving and none of those to come
     * is at or before {@code byNs}. A cursor over a whole file or journal never says not yet.
     */
    default HostMark next(long byNs) {
        return next();
    }

    @Override
    void close();
}
