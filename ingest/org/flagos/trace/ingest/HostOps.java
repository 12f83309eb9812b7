package org.flagos.trace.ingest;

import java.util.Iterator;
import java.util.List;

/**
 * The contents of an {@code .ops.jsonl} file held in memory: the capture window, the host op
 * ranges, and what reading them found questionable but not fatal (each a line for the trace's notes
 * and the CLI). A replay streams a file instead ({@link OpsJsonlFile}).
 */
public record HostOps(long windowStartNs, long windowEndNs, List<HostOp> ops, List<String> warnings) implements HostOpSource {
    public HostOps(long windowStartNs, long windowEndNs, List<HostOp> ops) {
        this(windowStartNs, windowEndNs, ops, List.of());
    }

    @Override
    public HostOpCursor cursor() {
        Iterator<HostOp> it = ops.iterator();
        return new HostOpCursor() {
            @Override
            public HostOp next() {
                return it.hasNext() ? it.next() : null;
            }

            @Override
            public void close() {
            }
        };
    }
}
