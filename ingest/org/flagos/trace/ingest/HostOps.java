package org.flagos.trace.ingest;

import java.util.List;

/**
 * The contents of an {@code .ops.jsonl} file: the capture window, the host op ranges, and what
 * reading them found questionable but not fatal (each a line for the trace's notes and the CLI).
 */
public record HostOps(long windowStartNs, long windowEndNs, List<HostOp> ops, List<String> warnings) {
    public HostOps(long windowStartNs, long windowEndNs, List<HostOp> ops) {
        this(windowStartNs, windowEndNs, ops, List.of());
    }
}
