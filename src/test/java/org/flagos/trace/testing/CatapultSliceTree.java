package org.flagos.trace.testing;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Catapult trace viewer's slice tree and flow-end lookup, restated from its source
 * ({@code SliceGroup.createSubSlicesImpl_}, {@code TimedEvent.bounds}, {@code findSliceAtTs}), to say
 * from a trace's JSON alone where the viewer binds each arrow's end. Per row (pid, tid) the slices
 * are sorted by start (ties in file order) and each goes under the latest slice of the chain before
 * it that bounds it; {@code bounds} compares times rounded to the trace's display unit (whole
 * microseconds for torch's {@code "displayTimeUnit": "ms"}). A flow end ({@code "f"}, {@code "bp":
 * "e"}) then binds to the deepest slice whose closed interval holds its exact instant, searched from
 * the row's top-level slices down.
 *
 * <p>So a slice that starts after the one before it on its row has ended (by less than a
 * microsecond), and ends within the microsecond that one ends in, is put under it though that one
 * holds none of its instants: the search never reaches it, and its arrow binds to an enclosing slice
 * or to none ({@code flow_slice_end_error}). At nanosecond precision the tree is the exact nesting.
 */
public final class CatapultSliceTree {
    /** Catapult's model time is ms: {@code convertUnit(us, MICRO, MILLI)}. */
    private static final double MS_PER_US = 1e-6 / 1e-3;

    private CatapultSliceTree() {
    }

    /** The precision {@code bounds} compares at: the trace's display unit, or nanoseconds. */
    public enum Precision {
        /** {@code displayTimeUnit} as written ("ms", the default: model times rounded to whole µs). */
        DISPLAY_UNIT,
        /** Whole nanoseconds (what {@code "displayTimeUnit": "ns"} gives): the exact nesting of the times written. */
        NANOSECONDS
    }

    private static final class Slice {
        final JsonNode event;
        final int index;
        final double start;
        final double end;
        final List<Slice> subSlices = new ArrayList<>();
        Slice parent;

        Slice(JsonNode event, int index) {
            this.event = event;
            this.index = index;
            this.start = event.get("ts").asDouble() * MS_PER_US;
            this.end = start + event.path("dur").asDouble(0) * MS_PER_US;
        }

        boolean holds(double ts) {
            return ts >= start && ts <= end;
        }
    }

    /**
     * For each flow end of {@code trace} (by flow id), the event the viewer binds it to, or null where
     * it binds none (the viewer warns {@code flow_slice_end_error}).
     */
    public static Map<Long, JsonNode> flowEnds(JsonNode trace, Precision precision) {
        return flowBindings(trace, precision, "f");
    }

    /**
     * For each flow start of {@code trace} (by flow id), the event the viewer binds it to (the same
     * lookup as an end's), or null where it binds none.
     */
    public static Map<Long, JsonNode> flowStarts(JsonNode trace, Precision precision) {
        return flowBindings(trace, precision, "s");
    }

    private static Map<Long, JsonNode> flowBindings(JsonNode trace, Precision precision, String phase) {
        double perMs = precision == Precision.NANOSECONDS || "ns".equals(trace.path("displayTimeUnit").asText())
                ? 1e6 : 1e3;
        Map<String, List<Slice>> rows = new HashMap<>();
        int index = 0;
        for (JsonNode e : trace.get("traceEvents")) {
            String ph = e.path("ph").asText();
            if ("X".equals(ph) || ("i".equals(ph) && "t".equals(e.path("s").asText()))) {
                rows.computeIfAbsent(row(e), k -> new ArrayList<>()).add(new Slice(e, index++));
            }
        }
        Map<String, List<Slice>> topLevel = new HashMap<>();
        rows.forEach((row, slices) -> topLevel.put(row, build(slices, perMs)));
        Map<Long, JsonNode> out = new LinkedHashMap<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if (phase.equals(e.path("ph").asText())) {
                Slice s = find(topLevel.getOrDefault(row(e), List.of()), e.get("ts").asDouble() * MS_PER_US);
                out.put(e.get("id").asLong(), s == null ? null : s.event);
            }
        }
        return out;
    }

    private static String row(JsonNode e) {
        return e.path("pid").asText() + "/" + e.path("tid").asText();
    }

    private static List<Slice> build(List<Slice> slices, double perMs) {
        slices.sort((x, y) -> x.start != y.start ? Double.compare(x.start, y.start) : Integer.compare(x.index, y.index));
        List<Slice> top = new ArrayList<>();
        Slice root = null;
        for (Slice s : slices) {
            while (root != null && !bounds(root, s, perMs)) {
                root = root.parent;
            }
            if (root == null) {
                top.add(s);
            } else {
                s.parent = root;
                root.subSlices.add(s);
            }
            root = s;
        }
        return top;
    }

    /** {@code TimedEvent.bounds}: neither starts before nor ends after, compared after rounding. */
    private static boolean bounds(Slice parent, Slice child, double perMs) {
        boolean startsBefore = Math.round(child.start * perMs) < Math.round(parent.start * perMs);
        boolean endsAfter = Math.round(parent.end * perMs) < Math.round(child.end * perMs);
        return !startsBefore && !endsAfter;
    }

    /** {@code SliceGroup.findSliceAtTs}. */
    private static Slice find(List<Slice> top, double ts) {
        int i = indexHolding(top, ts);
        if (i < 0 || i == top.size()) {
            return null;
        }
        Slice current = top.get(i);
        while (true) {
            i = indexHolding(current.subSlices, ts);
            if (i < 0 || i == current.subSlices.size()) {
                return current;
            }
            current = current.subSlices.get(i);
        }
    }

    /** {@code findIndexInSortedClosedIntervals}: checks only the two slices around the first start at or after ts. */
    private static int indexHolding(List<Slice> slices, double ts) {
        if (slices.isEmpty()) {
            return 0;
        }
        int i = firstStartingAtOrAfter(slices, ts);
        if (i == 0) {
            return slices.get(0).holds(ts) ? 0 : -1;
        }
        if (slices.get(i - 1).holds(ts)) {
            return i - 1;
        }
        if (i < slices.size() && slices.get(i).holds(ts)) {
            return i;
        }
        return slices.size();
    }

    private static int firstStartingAtOrAfter(List<Slice> slices, double ts) {
        int low = 0;
        int high = slices.size() - 1;
        int hit = -1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            double c = slices.get(mid).start - ts;
            if (c < 0) {
                low = mid + 1;
            } else if (c > 0) {
                high = mid - 1;
            } else {
                hit = mid;
                high = mid - 1;
            }
        }
        return hit != -1 ? hit : low;
    }
}
