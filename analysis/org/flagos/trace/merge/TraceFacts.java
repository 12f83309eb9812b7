package org.flagos.trace.merge;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.flagos.trace.model.ClockAnchor;
import org.flagos.trace.model.ProcessIdentity;
import org.flagos.trace.tracefile.EventTokens;
import org.flagos.trace.tracefile.TraceBlocks;
import org.flagos.trace.tracefile.TraceReader;

/**
 * What a merge needs to know of one Chrome JSON trace before copying its events: who captured it
 * (torch's {@code distributedInfo}, flagtrace's {@code flagtrace_process}), its clock anchors (in the
 * {@code flagtrace} block), the ends of its collectives' kernels, the base its {@code ts} values count from, its devices and its capture
 * accounting. Read by the one trace reader ({@link TraceReader}) in a whole pass: a trace may put
 * these after its events, and a trace the reader refuses is refused here, before a byte of the merged
 * trace is written.
 *
 * @param path      the trace
 * @param identity  who captured; fields not said are unknown (-1, null)
 * @param blocks    its blocks as the reader read them (anchors, base, devices, accounting)
 * @param collectives its collectives' kernels, for an alignment without anchors
 */
record TraceFacts(Path path, ProcessIdentity identity, TraceBlocks blocks, CollectiveEnds collectives) {
    /** What merge says after "PATH is a directory, ". */
    static final String DIRECTORY = "not a trace; name trace files (TRACE.json or TRACE.json.gz), a capture or a journal";

    /** Reads the facts of {@code path} ({@code .gz} or not, by its first bytes), every event checked by the reader's rules. */
    static TraceFacts read(Path path) throws IOException {
        CollectiveEnds collectives = new CollectiveEnds();
        TraceBlocks blocks = TraceReader.read(path, DIRECTORY, TraceReader.Options.FACTS, collectives::accept);
        return new TraceFacts(path, blocks.identity(), blocks, collectives.finish());
    }

    /** The rank: torch's {@code distributedInfo} where it says one, else {@code flagtrace_process}'s, else -1. */
    int rank() {
        return identity.rank();
    }

    /** The clock anchors, the start one first; empty when the trace has none. */
    List<ClockAnchor> anchors() {
        return blocks.anchors();
    }

    /** {@code baseTimeNanoseconds}, or 0 when absent (every {@code ts} is then absolute). */
    long baseNs() {
        return blocks.baseNs();
    }

    /** The device objects of its {@code deviceProperties}, as read. */
    List<EventTokens> devices() {
        return blocks.deviceObjects();
    }

    /** The numbers of its {@code flagtrace} block by dotted path. */
    Map<String, Long> accounting() {
        return blocks.accounting();
    }
}
