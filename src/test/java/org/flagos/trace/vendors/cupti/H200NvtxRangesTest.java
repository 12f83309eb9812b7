package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.flagos.trace.stages.OpSummaryRow;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The NVTX ranges of the real H200 capture of every kind (captures/h200-kinds/, made by
 * kinds_capture.cu: push/pop nested twice, start/end, a mark, push with attributes, a domain's
 * push/pop and start/end inside the op {@code kinds::nvtx}, and one range {@code nvtx::no_op} outside
 * every op around one kernel launch) against CUPTI's own decoding of the same MARKER records (its
 * truth file): every marker is accounted for, every range is a {@code user_annotation} with CUPTI's
 * name, domain, thread and times, nested as CUPTI's times nest them, and the kernel launched inside
 * the range no op encloses is that range's self device time.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class H200NvtxRangesTest {
    private static final String NAME = "h200-kinds/h200-kinds";
    private static final long RANGE_IDS = 1L << 52;

    private TraceJson.Replayed trace;
    private long base;
    /** CUPTI's ranges by marker id: the start's record with the end's timestamp added as {@code end}. */
    private final Map<Long, Range> ranges = new HashMap<>();
    private final List<JsonNode> marks = new ArrayList<>();
    private final List<JsonNode> truth = new ArrayList<>();
    private int markerRecords;
    private int markerDataRecords;

    private record Range(long id, String name, String domain, long start, long end, long thread, long pid) {
        boolean contains(Range o) {
            return o != this && start <= o.start && o.end <= end;
        }
    }

    @BeforeAll
    void replay() throws IOException {
        trace = TraceJson.replay(NAME);
        base = trace.trace().get("baseTimeNanoseconds").asLong();
        Map<Long, JsonNode> starts = new HashMap<>();
        Map<Long, Long> ends = new HashMap<>();
        for (String line : Files.readAllLines(Captures.truth(NAME))) {
            JsonNode t = TraceJson.MAPPER.readTree(line);
            truth.add(t);
            if ("marker_data".equals(t.get("kind").asText())) {
                markerDataRecords++;
            }
            if (!"marker".equals(t.get("kind").asText())) {
                continue;
            }
            markerRecords++;
            int flags = t.get("flags").asInt();
            long id = t.get("id").asLong();
            if (flags == 2) {
                starts.put(id, t);
            } else if (flags == 4) {
                ends.put(id, t.get("timestamp").asLong());
            } else {
                assertEquals(1, flags, "instantaneous: " + t);
                marks.add(t);
            }
        }
        assertEquals(starts.keySet(), ends.keySet(), "CUPTI closed every range it opened");
        starts.forEach((id, s) -> ranges.put(id, new Range(id, s.get("name").asText(),
                s.get("domain").isNull() ? null : s.get("domain").asText(), s.get("timestamp").asLong(), ends.get(id),
                s.get("objectId").get("threadId").asLong(), s.get("objectId").get("processId").asLong())));
    }

    private BigDecimal us(long epochNs) {
        return BigDecimal.valueOf(epochNs - base, 3);
    }

    private Map<String, JsonNode> annotationsByName() {
        Map<String, JsonNode> out = new HashMap<>();
        for (JsonNode e : trace.category("user_annotation")) {
            assertNull(out.put(e.get("name").asText(), e), "one range per name in this capture: " + e);
        }
        return out;
    }

    @Test
    void everyMarkerRecordIsAccountedFor() {
        assertEquals(15, markerRecords, "the capture's MARKER records");
        assertEquals(7, ranges.size());
        assertEquals(1, marks.size());
        JsonNode accounting = trace.trace().get("flagtrace");
        assertEquals(markerRecords, accounting.get("decoded").get("user_annotation").asLong(), "every MARKER decoded");
        JsonNode a = accounting.get("annotations");
        assertEquals(ranges.size(), a.get("ranges").asLong());
        assertEquals(marks.size(), a.get("marks").asLong());
        for (String unpaired : List.of("ends_without_start", "duplicate_starts", "never_closed", "open_at_capacity")) {
            assertEquals(0, a.get(unpaired).asLong(), unpaired);
        }
        assertEquals(markerRecords, 2 * a.get("ranges").asLong() + a.get("marks").asLong(), "two ends per range, one per mark");
        assertEquals(markerDataRecords, a.get("attribute_records_read").asLong(), "every MARKER_DATA read, none dropped");
        assertEquals(0, accounting.get("without_external_id").get("user_annotation").asLong(), "a marker needs no External id");
        assertEquals(ranges.size(), trace.category("user_annotation").size());
    }

    @Test
    void everyRangeHasCuptisNameDomainThreadAndTimes() {
        Map<String, JsonNode> drawn = annotationsByName();
        for (Range r : ranges.values()) {
            JsonNode e = drawn.get(r.name());
            assertNotNull(e, "range " + r);
            assertEquals("X", e.get("ph").asText());
            assertEquals(0, us(r.start()).compareTo(e.get("ts").decimalValue()), r + " at " + e);
            assertEquals(0, BigDecimal.valueOf(r.end() - r.start(), 3).compareTo(e.get("dur").decimalValue()), r + " at " + e);
            assertEquals(r.thread(), e.get("tid").asLong(), "on the thread CUPTI names: " + r);
            assertEquals(r.pid(), e.get("pid").asLong());
            assertEquals(RANGE_IDS + r.id(), e.get("args").get("External id").asLong(), "its own External id space");
            if (r.domain() == null) {
                assertFalse(e.get("args").has("domain"), e.toString());
            } else {
                assertEquals(r.domain(), e.get("args").get("domain").asText());
            }
        }
    }

    @Test
    void rangesNestAsCuptisTimesNestAndWithTheOpsOnTheirRow() {
        Map<String, JsonNode> drawn = annotationsByName();
        List<Range> all = new ArrayList<>(ranges.values());
        int nested = 0;
        for (Range a : all) {
            for (Range b : all) {
                if (a == b) {
                    continue;
                }
                boolean inTrace = inside(drawn.get(b.name()), drawn.get(a.name()));
                assertEquals(a.contains(b), inTrace, b.name() + " inside " + a.name());
                nested += inTrace ? 1 : 0;
            }
        }
        assertEquals(1, nested, "nvtx::inner inside nvtx::outer, nothing else");
        assertTrue(inside(drawn.get("nvtx::inner"), drawn.get("nvtx::outer")));
        JsonNode op = null;
        for (JsonNode e : trace.category("cpu_op")) {
            if ("kinds::nvtx".equals(e.get("name").asText())) {
                op = e;
            }
        }
        assertNotNull(op);
        for (Range r : all) {
            JsonNode e = drawn.get(r.name());
            assertEquals(op.get("tid").asLong(), e.get("tid").asLong(), "the op's row: " + r);
            assertEquals(!r.name().equals("nvtx::no_op"), inside(e, op), r.name() + " inside kinds::nvtx");
        }
        for (JsonNode other : trace.category("cpu_op")) {
            assertFalse(inside(drawn.get("nvtx::no_op"), other), "nvtx::no_op is outside every op: " + other);
        }
        // the summary nests them too: the op's self CPU time leaves out its child ranges and the runtime
        // calls on its row directly inside it (KeyAveragesRule: a call is a child of the op around it)
        OpSummaryRow row = trace.result().summary().row("kinds::nvtx");
        double children = 0;
        for (Range r : all) {
            if (!r.name().equals("nvtx::no_op") && !r.name().equals("nvtx::inner")) {
                children += (r.end() - r.start()) / 1000.0;
            }
        }
        children += directCalls(op, all, drawn);
        assertEquals(row.cpuTimeTotalUs() - children, row.selfCpuTimeTotalUs(), 0.002);
        OpSummaryRow outer = trace.result().summary().row("nvtx::outer");
        Range inner = byName("nvtx::inner");
        double outerChildren = (inner.end() - inner.start()) / 1000.0
                + directCalls(drawn.get("nvtx::outer"), List.of(inner), drawn);
        assertEquals(outer.cpuTimeTotalUs() - outerChildren, outer.selfCpuTimeTotalUs(), 0.002);
    }

    @Test
    void theMarkIsAThreadInstantAtCuptisTime() {
        JsonNode t = marks.get(0);
        List<JsonNode> drawn = new ArrayList<>();
        for (JsonNode e : trace.category("cpu_instant_event")) {
            if (!"[memory]".equals(e.get("name").asText())) {
                drawn.add(e);
            }
        }
        assertEquals(1, drawn.size());
        JsonNode e = drawn.get(0);
        assertEquals(t.get("name").asText(), e.get("name").asText());
        assertEquals("i", e.get("ph").asText());
        assertEquals("t", e.get("s").asText(), "thread-scoped");
        assertEquals(0, us(t.get("timestamp").asLong()).compareTo(e.get("ts").decimalValue()), e.toString());
        assertEquals(t.get("objectId").get("threadId").asLong(), e.get("tid").asLong());
    }

    /**
     * The kernel launched inside {@code nvtx::no_op}, where no op runs, is that range's self device
     * time; the ranges inside {@code kinds::nvtx} get none (the op owns its launches), and the op's
     * device time is what it was before ranges were drawn: the device work bound to its External id.
     */
    @Test
    void deviceWorkLaunchedInARangeOutsideEveryOpIsTheRangesDeviceTime() {
        Range noOp = byName("nvtx::no_op");
        Set<Long> bound = new HashSet<>();
        Map<Long, Long> externalOf = new HashMap<>();
        for (JsonNode t : truth) {
            if ("external_correlation".equals(t.get("kind").asText())) {
                bound.add(t.get("correlation").asLong());
                externalOf.put(t.get("correlation").asLong(), t.get("externalId").asLong());
            }
        }
        Set<Long> calls = new HashSet<>();
        for (JsonNode t : truth) {
            if (Set.of("runtime", "driver").contains(t.get("kind").asText()) && t.get("thread").asLong() == noOp.thread()
                    && t.get("start").asLong() >= noOp.start() && t.get("start").asLong() <= noOp.end()) {
                assertFalse(bound.contains(t.get("correlation").asLong()), "no op encloses " + t);
                calls.add(t.get("correlation").asLong());
            }
        }
        assertFalse(calls.isEmpty());
        long deviceNs = 0;
        long opNs = 0;
        for (JsonNode t : truth) {
            if (Set.of("kernel", "memcpy", "memset").contains(t.get("kind").asText())) { // device work, as an op sums it
                long ns = t.get("end").asLong() - t.get("start").asLong();
                if (calls.contains(t.get("correlation").asLong())) {
                    deviceNs += ns;
                }
                if (Long.valueOf(22).equals(externalOf.get(t.get("correlation").asLong()))) {
                    opNs += ns; // kinds::nvtx's External id in the ops file
                }
            }
        }
        assertTrue(deviceNs > 0);
        assertEquals(deviceNs / 1000.0, trace.result().summary().row("nvtx::no_op").selfDeviceTimeTotalUs(), 0.0005);
        for (Range r : ranges.values()) {
            if (!r.name().equals("nvtx::no_op")) {
                assertEquals(0.0, trace.result().summary().row(r.name()).selfDeviceTimeTotalUs(), r.name());
            }
        }
        assertEquals(opNs / 1000.0, trace.result().summary().row("kinds::nvtx").selfDeviceTimeTotalUs(), 0.0005);
        JsonNode a = trace.trace().get("flagtrace").get("annotations");
        assertEquals(1, a.get("device_records_in_ranges").asLong());
        // as torch links a launch to the innermost range around it: the call and its kernel carry the range's id
        Set<String> linked = new HashSet<>();
        for (JsonNode e : trace.events()) {
            if (e.path("args").path("External id").asLong(-1) == RANGE_IDS + noOp.id()
                    && !Set.of("user_annotation", "gpu_user_annotation").contains(e.get("cat").asText())) {
                assertTrue(calls.contains(e.get("args").get("correlation").asLong()), e.toString());
                linked.add(e.get("cat").asText());
            }
        }
        assertTrue(linked.containsAll(Set.of("cuda_runtime", "kernel")), "linked: " + linked);
    }

    private Range byName(String name) {
        for (Range r : ranges.values()) {
            if (r.name().equals(name)) {
                return r;
            }
        }
        throw new AssertionError(name);
    }

    /** Whether event {@code in} lies within event {@code out} on the same row. */
    private static boolean inside(JsonNode in, JsonNode out) {
        if (in.get("tid").asLong() != out.get("tid").asLong() || in == out) {
            return false;
        }
        BigDecimal s = in.get("ts").decimalValue();
        BigDecimal e = s.add(in.get("dur").decimalValue());
        BigDecimal os = out.get("ts").decimalValue();
        return s.compareTo(os) >= 0 && e.compareTo(os.add(out.get("dur").decimalValue())) <= 0;
    }

    /** Microseconds of the runtime and driver calls on {@code parent}'s row inside it and inside none of {@code nested}. */
    private double directCalls(JsonNode parent, List<Range> nested, Map<String, JsonNode> drawn) {
        double us = 0;
        List<JsonNode> calls = new ArrayList<>(trace.category("cuda_runtime"));
        calls.addAll(trace.category("cuda_driver"));
        for (JsonNode c : calls) {
            if (c.get("tid").asLong() != parent.get("tid").asLong() || !inside(c, parent)) {
                continue;
            }
            boolean deeper = false;
            for (Range r : nested) {
                JsonNode e = drawn.get(r.name());
                deeper |= e != null && e != parent && inside(c, e);
            }
            if (!deeper) {
                us += c.get("dur").asDouble();
            }
        }
        return us;
    }
}
