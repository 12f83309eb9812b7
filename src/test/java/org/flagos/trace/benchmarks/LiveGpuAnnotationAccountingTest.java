package org.flagos.trace.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.session.OpScope;
import org.flagos.trace.session.Profiler;
import org.flagos.trace.session.ProfilerSession;
import org.flagos.trace.session.SessionOptions;
import org.flagos.trace.stages.CaptureAccounting;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a live session's events go when its op loop outruns the device: the shape of
 * {@link CpuStopToTraceProbe} with no pace, whose traces held tens of thousands of events fewer than
 * 6 per op. {@link SyntheticMemsetTracer} stamps each memset 1 to 2 µs after its launch returned, on
 * one stream, whatever ran there before, so launches less than a microsecond apart make memsets that
 * overlap on their stream (a GPU runs a stream's work one after the other). Their ops' GPU annotation
 * spans then cross each other: the walk leaves out each one that would cross a span drawn, and counts
 * it. Every other event is written: an op, its call, its memset, its arrow's two halves, and its span
 * or a count in {@code gpu_annotations.not_nested}.
 */
class LiveGpuAnnotationAccountingTest {
    private static final int OPS = 20_000;

    @TempDir
    Path dir;

    @Test
    void everyOpsSixEventsAreWrittenOrItsSpanIsCountedAsCrossingADrawnOne() throws Exception {
        Path trace = dir.resolve("loop.json");
        SyntheticMemsetTracer tracer = new SyntheticMemsetTracer();
        ProfilerSession session = Profiler.start(tracer, SessionOptions.to(trace));
        for (int i = 0; i < OPS; i++) {
            try (OpScope op = session.op("aten::fill_")) {
                tracer.launchOne((int) (op.externalId() & 0xff));
            }
        }
        session.close();
        CaptureAccounting counts = session.accounting();
        JsonNode root = TraceJson.MAPPER.readTree(trace.toFile());

        Map<String, Long> byCat = new HashMap<>();
        Map<Long, long[]> memset = new HashMap<>(); // External id -> its memset [start, end] ns
        List<long[]> drawn = new ArrayList<>();
        Map<Long, Boolean> spanOf = new HashMap<>();
        long stream = -1;
        for (JsonNode e : root.get("traceEvents")) {
            String cat = e.path("cat").asText();
            byCat.merge(cat, 1L, Long::sum);
            if (cat.equals("gpu_memset")) {
                memset.put(e.get("args").get("External id").asLong(), range(e));
                stream = e.get("tid").asLong();
            } else if (cat.equals("gpu_user_annotation")) {
                assertEquals(stream, e.get("tid").asLong(), "one stream");
                drawn.add(range(e));
                spanOf.put(e.get("args").get("External id").asLong(), true);
            }
        }
        long annotations = byCat.getOrDefault("gpu_user_annotation", 0L);
        long notNested = counts.gpuAnnotationsNotNested();
        JsonNode block = root.get("flagtrace").get("gpu_annotations");
        assertEquals(annotations, block.get("events").asLong());
        assertEquals(notNested, block.get("not_nested").asLong(), "the trace's own accounting block says it");
        assertEquals(0, block.get("streams_past_limit").asLong());
        assertEquals(0, counts.recordsAfterOpSettled() + counts.deviceRecordsWithoutOp() + counts.opsSettledAtCapacity());

        assertEquals(OPS, byCat.get("cpu_op"));
        assertEquals(OPS, byCat.get("cuda_runtime"));
        assertEquals(OPS, byCat.get("gpu_memset"));
        assertEquals(2L * OPS, byCat.get("ac2g"), "each launch's arrow, both halves");
        assertEquals(OPS, annotations + notNested, "each op's span is drawn or counted");
        assertEquals(6L * OPS - notNested, session.events(), "6 events per op, less the spans counted");
        assertEquals(session.events(), root.get("flagtrace").get("events").asLong());

        // each span left out crosses one drawn: none is refused that could have been drawn
        drawn.sort((a, b) -> Long.compare(a[0], b[0]));
        long crossing = 0;
        long overlappingMemsets = 0;
        long[] previous = null;
        for (Map.Entry<Long, long[]> m : memset.entrySet()) {
            if (spanOf.containsKey(m.getKey())) {
                continue;
            }
            long s = m.getValue()[0] - 1;
            long e = m.getValue()[1] + 1;
            for (int i = firstEndingAfter(drawn, s); i < drawn.size() && drawn.get(i)[0] < e; i++) {
                long[] d = drawn.get(i);
                if (d[1] > s && !(d[0] <= s && e <= d[1]) && !(s <= d[0] && d[1] <= e)) {
                    crossing++;
                    break;
                }
            }
        }
        List<long[]> sets = new ArrayList<>(memset.values());
        sets.sort((a, b) -> Long.compare(a[0], b[0]));
        for (long[] m : sets) {
            if (previous != null && m[0] < previous[1]) {
                overlappingMemsets++;
            }
            previous = m;
        }
        assertEquals(notNested, crossing, "every span counted as not nested crosses a span drawn on its stream");
        assertTrue(notNested == 0 || overlappingMemsets > 0, "spans are left out only where memsets overlap on the stream");
        System.out.println("loop of " + OPS + " ops: " + session.events() + " events, " + notNested + " spans not nested, "
                + overlappingMemsets + " memsets overlapping the one before, ring-full waits " + counts.ringFullWaits()
                + ", ops kept aside " + counts.opsSpilled());
    }

    /** Where to look among the drawn spans for one crossing a span starting at {@code s}: one level of ops, so they are disjoint and in order. */
    private static int firstEndingAfter(List<long[]> drawn, long s) {
        int lo = 0;
        int hi = drawn.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (drawn.get(mid)[0] < s) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return Math.max(0, lo - 1);
    }

    private static long[] range(JsonNode e) {
        long start = Math.round(e.get("ts").asDouble() * 1000);
        return new long[] {start, start + Math.round(e.get("dur").asDouble() * 1000)};
    }
}
