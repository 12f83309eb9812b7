package org.flagos.trace.ingest;

import java.util.ArrayList;
import java.util.List;

/**
 * What an ops file may hold but should not, found after it parsed: ops outside the capture window
 * (the window drops them), a window that holds no op. Warned about, counted, never fatal: the
 * device records are still right. Duplicate External ids and negative times are errors instead
 * ({@link OpsJsonlReader}): they would double-count device time or break every duration. Ops that
 * overlap on a thread without nesting are found where ops are nested, as they settle in the trace
 * writer (its fold of the summary), so a streamed file needs no second look at every op.
 */
final class HostOpsCheck {
    /** @param outside ops that end before the window starts or start after it ends */
    static List<String> warnings(long ops, long outside, long windowStart, long windowEnd) {
        List<String> warnings = new ArrayList<>();
        if (ops > 0 && outside == ops) {
            warnings.add("the capture window [" + windowStart + ", " + windowEnd + "] holds none of the " + ops
                    + " ops: every op is dropped");
        } else if (outside > 0) {
            warnings.add(outside + " of " + ops + " ops lie outside the capture window and are dropped");
        }
        if (windowEnd == windowStart) {
            warnings.add(HostOpSource.EMPTY_WINDOW);
        }
        return warnings;
    }

    static boolean outside(HostOp op, long windowStart, long windowEnd) {
        return op.endNs() < windowStart || op.startNs() > windowEnd;
    }

    private HostOpsCheck() {
    }
}
