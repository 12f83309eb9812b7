package org.flagos.trace.encoders;

import java.io.IOException;

/**
 * Where a trace's reader puts the rows of the {@code events} table and the facts they share, which a
 * trace file may state after its events (docs/tables.md): {@link EventTable} writes them as Parquet.
 */
public interface EventRows {
    /**
     * One input: its name, the base time its rows' {@link EventTable.Row#ts} count from (epoch ns), and
     * for a merged trace its pid stride ({@code (slot + 1) * stride + n} names a slot), 0 for any other.
     */
    void source(int source, String name, long baseNs, long pidStride);

    /** A slot's rank (null when its trace names none) and host (null when unknown). */
    void slot(int slot, Integer rank, String host);

    /** A merged trace's pid {@code tracePid} of {@code slot} stands for {@code originalPid} ({@link EventTable#NONE}: no number). */
    void pid(int slot, long tracePid, long originalPid);

    /** One event. */
    void add(EventTable.Row r) throws IOException;
}
