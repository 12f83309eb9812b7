package org.flagos.trace.ingest;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What an ops file may hold but should not, found after it parsed: ops on one thread that overlap
 * without nesting (self CPU time assumes nesting: a partly overlapping sibling is subtracted from
 * an op it does not belong to, and its self time can go negative), ops outside the capture window
 * (the window drops them), a window that holds no op. Warned about, counted, never fatal: the
 * device records are still right. Duplicate External ids and negative times are errors instead
 * ({@link OpsJsonlReader}): they would double-count device time or break every duration.
 */
final class HostOpsCheck {
    static List<String> warnings(List<HostOp> ops, long windowStart, long windowEnd) {
        List<String> warnings = new ArrayList<>();
        long outside = 0;
        for (HostOp op : ops) {
            if (op.endNs() < windowStart || op.startNs() > windowEnd) {
                outside++;
            }
        }
        if (!ops.isEmpty() && outside == ops.size()) {
            warnings.add("the capture window [" + windowStart + ", " + windowEnd + "] holds none of the " + ops.size()
                    + " ops: every op is dropped");
        } else if (outside > 0) {
            warnings.add(outside + " of " + ops.size() + " ops lie outside the capture window and are dropped");
        }
        if (windowEnd == windowStart) {
            warnings.add("the capture window is empty (window_start equals window_end)");
        }
        Map<Long, List<HostOp>> byThread = new HashMap<>();
        for (HostOp op : ops) {
            byThread.computeIfAbsent(op.thread(), t -> new ArrayList<>()).add(op);
        }
        long crossing = 0;
        String first = null;
        for (List<HostOp> thread : byThread.values()) {
            thread.sort(Comparator.comparingLong(HostOp::startNs).thenComparing(Comparator.comparingLong(HostOp::endNs).reversed()));
            List<HostOp> open = new ArrayList<>();
            for (HostOp op : thread) {
                while (!open.isEmpty() && open.get(open.size() - 1).endNs() <= op.startNs()) {
                    open.remove(open.size() - 1);
                }
                if (!open.isEmpty() && open.get(open.size() - 1).endNs() < op.endNs()) {
                    crossing++;
                    if (first == null) {
                        HostOp parent = open.get(open.size() - 1);
                        first = "'" + op.name() + "' (External id " + op.externalId().value() + ") starts inside '" + parent.name()
                                + "' (External id " + parent.externalId().value() + ") but ends after it";
                    }
                }
                open.add(op);
            }
        }
        if (crossing > 0) {
            warnings.add(crossing + " ops overlap an op on their thread without nesting in it (first: " + first
                    + "); self CPU times of the ops involved are not meaningful");
        }
        return warnings;
    }

    private HostOpsCheck() {
    }
}
