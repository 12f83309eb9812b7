package org.flagos.trace.ingest;

/** Marks one at a time, in recorded order (a {@code .marks.jsonl} file, or a journal's mark documents); holds at most the current mark. */
public interface HostMarkCursor extends AutoCloseable {
    /** The next mark, or null after the last. */
    HostMark next();

    @Override
    void close();
}
