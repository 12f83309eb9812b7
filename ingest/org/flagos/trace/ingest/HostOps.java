package org.flagos.trace.ingest;

import java.util.List;

/** The contents of an {@code .ops.jsonl} file: the capture window and the host op ranges. */
public record HostOps(long windowStartNs, long windowEndNs, List<HostOp> ops) {
}
