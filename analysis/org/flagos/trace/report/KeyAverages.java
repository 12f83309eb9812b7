package org.flagos.trace.report;

import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.stages.OpSummary;
import org.flagos.trace.stages.OpSummaryRow;

/**
 * The key_averages table of a trace, computed from the trace alone with the semantics of torch's
 * profiler ({@code torch.autograd.profiler_util}):
 * <ul>
 * <li>host events (ops, runtime and driver calls, overhead) nest per thread by time containment,
 *     by {@link org.flagos.trace.stages.KeyAveragesRule}, the rule every summary of flagtrace follows:
 *     every event is a call; an event's self CPU time is its duration less the union of its direct
 *     children's spans, never negative;</li>
 * <li>an op's self device time is the device events whose External id is the op's; its device
 *     total adds its children's device totals; runtime calls carry no device time;</li>
 * <li>device events are rows of their own: self device time = device total = their duration;
 *     rows are keyed by name and device type, as torch keys them, so a kernel named like its host
 *     op (inductor's {@code triton_*}) is a device row beside the op's host row;</li>
 * <li>an overhead event (it carries no External id; pid -1 in torch's traces) belongs to the
 *     innermost op enclosing it in time on any host thread: it nests as that op's child on the op's
 *     thread and is credited with the device events of the op's External id. This reproduces what
 *     torch's profiler links for CUPTI's "Activity Buffer Request" (and only that can be checked
 *     against a real torch table); an overhead event outside every op stays alone on its row.</li>
 * </ul>
 * Rows keep the order of each name's first event by start time (then longer first), which is the
 * order torch lists ties in when it sorts.
 */
public final class KeyAverages {
    private final List<KeyAveragesRow> rows;
    private final boolean cuda;

    KeyAverages(List<KeyAveragesRow> rows, boolean cuda) {
        this.rows = List.copyOf(rows);
        this.cuda = cuda;
    }

    /** Rows in first-appearance order. */
    public List<KeyAveragesRow> rows() {
        return rows;
    }

    /** The first row named {@code name} (host or device), or null. */
    public KeyAveragesRow row(String name) {
        for (KeyAveragesRow r : rows) {
            if (r.name().equals(name)) {
                return r;
            }
        }
        return null;
    }

    /** The row named {@code name} of device work ({@code device}) or host events, or null. */
    public KeyAveragesRow row(String name, boolean device) {
        for (KeyAveragesRow r : rows) {
            if (r.name().equals(name) && r.device() == device) {
                return r;
            }
        }
        return null;
    }

    /** Sum of self CPU time over {@code rows} in their order (torch's "Self CPU time total" sums the sorted rows). */
    public static double selfCpuTotalUs(List<KeyAveragesRow> rows) {
        double sum = 0;
        for (KeyAveragesRow r : rows) {
            sum += r.selfCpuUs();
        }
        return sum;
    }

    /** Sum of the device rows' time over {@code rows} in their order (torch's "Self CUDA time total"). */
    public static double selfDeviceTotalUs(List<KeyAveragesRow> rows) {
        double sum = 0;
        for (KeyAveragesRow r : rows) {
            if (r.device()) {
                sum += r.selfDeviceUs();
            }
        }
        return sum;
    }

    /** "CUDA" for CUDA traces, as torch names its device columns, else "device". */
    public String deviceLabel() {
        return cuda ? "CUDA" : "device";
    }

    /** Whether any row has device time: torch shows the device columns only then. */
    public boolean hasDeviceTime() {
        for (KeyAveragesRow r : rows) {
            if (r.deviceTotalUs() > 0 || r.device()) {
                return true;
            }
        }
        return false;
    }

    /**
     * The table the walk computed ({@link OpSummary}, by the same rule): its ops and runtime calls as
     * host rows, its device records as device rows, in the summary's order.
     */
    public static KeyAverages of(OpSummary summary) {
        // Rows in first-appearance order, as a trace file's: ties on a sort key then come out alike.
        List<OpSummaryRow> all = new ArrayList<>(summary.rows());
        all.addAll(summary.calls());
        int hostRows = all.size();
        all.addAll(summary.device());
        Integer[] order = new Integer[all.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        java.util.Arrays.sort(order, (a, b) -> all.get(a).compareFirstAppearance(all.get(b)));
        List<KeyAveragesRow> rows = new ArrayList<>();
        for (int i : order) {
            OpSummaryRow r = all.get(i);
            rows.add(i < hostRows
                    ? new KeyAveragesRow(r.name(), false, r.count(), r.selfCpuTimeTotalUs(), r.cpuTimeTotalUs(),
                            r.selfDeviceTimeTotalUs(), r.deviceTimeTotalUs())
                    : new KeyAveragesRow(r.name(), true, r.count(), 0, 0, r.selfDeviceTimeTotalUs(), r.deviceTimeTotalUs()));
        }
        return new KeyAverages(rows, true);
    }

    /** The table of {@code trace}, computed while it was read. */
    public static KeyAverages of(TraceFile trace) {
        return trace.averages();
    }
}
