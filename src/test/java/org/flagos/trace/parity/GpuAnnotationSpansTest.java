package org.flagos.trace.parity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.flagos.trace.capture.CaptureJournal;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.capture.JournalReplay;
import org.flagos.trace.cli.TestDevices;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.ingest.OpsJsonlReader;
import org.flagos.trace.journal.JournalOptions;
import org.flagos.trace.journal.JournalWindow;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * GPU annotation spans on the real H200 captures, recounted from the trace itself: for every op with
 * device work, its {@code gpu_user_annotation} on each stream spans exactly the earliest start to the
 * latest end (each widened by 1 ns, as torch draws them) of the kernels, copies and sets whose External id is the op's or a nested op's (nesting
 * told from the {@code cpu_op} events: the same thread, inside the op's range); every span the walk
 * did not draw is counted in the {@code gpu_annotations} block; and the spans of one stream nest.
 */
class GpuAnnotationSpansTest {
    private static final List<String> DEVICE = List.of("kernel", "gpu_memcpy", "gpu_memset");

    private record Op(long externalId, long thread, long start, long end) {
    }

    @ParameterizedTest
    @ValueSource(strings = {"h200-app", "h200-app-tiny2k", "h200-mt4", "h200-tiny30k", "h200-java-parity",
            "h200-java-parity-wide-tid", "h200-kinds/h200-kinds"})
    void eachSpanIsItsOpsAndNestedOpsRecordsOnItsStream(String capture) {
        JsonNode trace = TraceJson.replay(request(capture)).trace();
        List<Op> ops = new ArrayList<>();
        Map<Long, Map<Long, long[]>> ownByStream = new HashMap<>(); // External id -> stream -> [min start, max end]
        Map<Long, Map<Long, long[]>> drawn = new HashMap<>();
        long annotations = 0;
        for (JsonNode e : trace.get("traceEvents")) {
            String cat = e.path("cat").asText();
            if (cat.equals("cpu_op") || cat.equals("user_annotation")) { // ops, and NVTX ranges nesting with them on their row
                long thread = e.get("tid").asLong();
                ops.add(new Op(e.get("args").get("External id").asLong(), thread, ns(e.get("ts")), ns(e.get("ts")) + ns(e.get("dur"))));
            } else if (DEVICE.contains(cat) && e.get("args").has("External id")) {
                widen(ownByStream, e.get("args").get("External id").asLong(), stream(e), ns(e.get("ts")), ns(e.get("ts")) + ns(e.get("dur")));
            } else if (cat.equals("gpu_user_annotation")) {
                annotations++;
                assertEquals(List.of("External id"), keys(e.get("args")), "torch's one arg");
                long[] span = {ns(e.get("ts")) + 1, ns(e.get("ts")) + ns(e.get("dur")) - 1}; // drawn 1 ns wider, as torch does
                long[] before = drawn.computeIfAbsent(e.get("args").get("External id").asLong(), x -> new HashMap<>()).put(stream(e), span);
                assertEquals(null, before, "one span per op and stream");
            }
        }
        Map<Long, Map<Long, long[]>> expected = new HashMap<>();
        // descendants: the ops of the same thread inside the op's range (identical ranges: the later id is the child)
        Map<Long, List<Op>> byThread = new HashMap<>();
        ops.forEach(o -> byThread.computeIfAbsent(o.thread(), t -> new ArrayList<>()).add(o));
        for (List<Op> thread : byThread.values()) {
            thread.sort(Comparator.comparingLong(Op::start).thenComparing(Comparator.comparingLong(Op::end).reversed())
                    .thenComparingLong(Op::externalId));
            for (int i = 0; i < thread.size(); i++) {
                Op op = thread.get(i);
                for (int j = i; j < thread.size() && (j == i || thread.get(j).start() <= op.end()); j++) {
                    Op inner = thread.get(j); // sorted after op: starts at or after it
                    if (inner.end() <= op.end()) {
                        ownByStream.getOrDefault(inner.externalId(), Map.of())
                                .forEach((stream, span) -> widen(expected, op.externalId(), stream, span[0], span[1]));
                    }
                }
            }
        }
        JsonNode block = trace.get("flagtrace").get("gpu_annotations");
        long notNested = block.get("not_nested").asLong();
        assertEquals(0, block.get("streams_past_limit").asLong(), capture + ": no op of these captures runs on more than four streams");
        assertEquals(annotations, block.get("events").asLong(), "the block counts the spans drawn");
        long expectedSpans = 0;
        long matching = 0;
        for (Map.Entry<Long, Map<Long, long[]>> op : expected.entrySet()) {
            for (Map.Entry<Long, long[]> s : op.getValue().entrySet()) {
                expectedSpans++;
                long[] got = drawn.getOrDefault(op.getKey(), Map.of()).get(s.getKey());
                if (got != null) {
                    assertEquals(s.getValue()[0] + ".." + s.getValue()[1], got[0] + ".." + got[1],
                            capture + ": op " + op.getKey() + " on stream " + s.getKey());
                    matching++;
                }
            }
        }
        drawn.forEach((op, streams) -> streams.keySet().forEach(s -> assertTrue(expected.containsKey(op)
                && expected.get(op).containsKey(s), capture + ": a span of op " + op + " on stream " + s + " without its records")));
        assertEquals(matching, annotations, capture + ": every span drawn is an op's");
        assertEquals(expectedSpans, annotations + notNested, capture + ": each op's span per stream is drawn or counted");
        assertTrue(annotations > 0, capture + " has spans");
        System.out.println(capture + ": " + annotations + " spans drawn, " + notNested + " not nested, of " + expectedSpans);
        assertStreamsNest(trace, capture);
    }

    /**
     * Per stream, the spans are a nest: sorted by start (longer first), each lies inside the innermost
     * still open; and no device record on the stream starts inside a span and ends outside it or the
     * other way round (the 1 ns drawn past a span's own records included).
     */
    private static void assertStreamsNest(JsonNode trace, String capture) {
        Map<Long, List<long[]>> byStream = new TreeMap<>();
        Map<Long, List<long[]>> records = new HashMap<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if (e.path("cat").asText().equals("gpu_user_annotation")) {
                byStream.computeIfAbsent(stream(e), s -> new ArrayList<>()).add(new long[] {ns(e.get("ts")), ns(e.get("ts")) + ns(e.get("dur"))});
            } else if (DEVICE.contains(e.path("cat").asText())) {
                records.computeIfAbsent(stream(e), s -> new ArrayList<>()).add(new long[] {ns(e.get("ts")), ns(e.get("ts")) + ns(e.get("dur"))});
            }
        }
        for (Map.Entry<Long, List<long[]>> s : byStream.entrySet()) {
            List<long[]> onStream = records.getOrDefault(s.getKey(), List.of());
            onStream.sort(Comparator.comparingLong(r -> r[0]));
            long[] starts = onStream.stream().mapToLong(r -> r[0]).toArray();
            for (long[] span : s.getValue()) {
                for (long edge : new long[] {span[0], span[1]}) { // a record crossing an edge starts before it and ends after it
                    int i = java.util.Arrays.binarySearch(starts, edge);
                    for (int j = (i >= 0 ? i : -i - 1) - 1; j >= 0 && j >= (i >= 0 ? i : -i - 1) - 64; j--) {
                        long[] r = onStream.get(j);
                        assertTrue(!(r[0] < edge && r[1] > edge), capture + ": a record " + r[0] + ".." + r[1] + " on stream "
                                + s.getKey() + " crosses the span " + span[0] + ".." + span[1]);
                    }
                }
            }
        }
        for (Map.Entry<Long, List<long[]>> s : byStream.entrySet()) {
            List<long[]> spans = s.getValue();
            spans.sort(Comparator.<long[]>comparingLong(a -> a[0]).thenComparing(a -> -a[1]));
            List<long[]> open = new ArrayList<>();
            for (long[] span : spans) {
                while (!open.isEmpty() && open.get(open.size() - 1)[1] <= span[0]) {
                    open.remove(open.size() - 1);
                }
                assertTrue(open.isEmpty() || span[1] <= open.get(open.size() - 1)[1],
                        capture + ": a span on stream " + s.getKey() + " partly overlaps another: " + span[0] + ".." + span[1]);
                open.add(span);
            }
        }
    }

    /**
     * h200-tiny30k's 30,000 tiny ops wrapped in steps of 6,000 (from 1 ns before the first to the end of the
     * last), each step's line after its last op's, as a session writes an op at its close. A thread holds at most {@code OpSummaryFold.MAX_SIBLINGS} ops
     * waiting for a parent and merges the older half, split at the longest idle gaps: the boundary between
     * two steps, no longer than the gaps between tiny ops, is merged away, so a step starts between the
     * parts of a merged entry and its span lacks its first ops' work ({@code ops_nested_approximately}).
     * Those ops' rows come after the step's (start order), their spans before its span on the stream: each
     * is still nested (after the previous step, before this one's span) and is drawn, not counted as not
     * nested, and the stream's spans stay a nest.
     */
    @Test
    void opsWrittenAfterTheirStepsShorterSpanAreDrawnWhenTheyNest(@TempDir Path dir) throws Exception {
        String capture = "h200-tiny30k";
        Path ops = dir.resolve("stepped.ops.jsonl");
        int perStep = 6_000;
        long steps = 0;
        List<String> lines = new ArrayList<>();
        try (var in = new java.io.BufferedReader(new java.io.InputStreamReader(new java.util.zip.GZIPInputStream(
                java.nio.file.Files.newInputStream(Captures.ops(capture))), java.nio.charset.StandardCharsets.UTF_8))) {
            long firstStart = -1;
            int inStep = 0;
            for (String line; (line = in.readLine()) != null; ) {
                lines.add(line);
                JsonNode op = TraceJson.MAPPER.readTree(line);
                if (!op.path("name").asText().equals("app::tiny")) {
                    continue;
                }
                if (inStep++ == 0) {
                    firstStart = op.get("start").asLong();
                }
                if (inStep == perStep) {
                    lines.add("{\"name\":\"app::step\",\"external_id\":" + (1_000_000 + steps++) + ",\"start\":" + (firstStart - 1)
                            + ",\"end\":" + op.get("end").asLong() + "}");
                    inStep = 0;
                }
            }
        }
        java.nio.file.Files.write(ops, lines);
        assertEquals(5, steps);
        JsonNode trace = TraceJson.replay(CaptureReplay.Request.of(CaptureBytes.load(Captures.capture(capture)), capture)
                .ops(OpsJsonlReader.read(ops)).kernelNames(KernelNameFile.read(Captures.names(capture)))
                .devices(TestDevices.h200()).ringSize(1 << 12).build()).trace();
        JsonNode accounting = trace.get("flagtrace");
        assertTrue(accounting.get("reorder_horizon").get("ops_nested_approximately").asLong() > 0,
                "a step starts inside a merged entry of the ops before it: " + accounting.get("reorder_horizon"));
        long tinySpans = 0;
        java.util.Set<Long> tiny = new java.util.HashSet<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if (e.path("cat").asText().equals("cpu_op") && e.get("name").asText().equals("app::tiny")) {
                tiny.add(e.get("args").get("External id").asLong());
            }
        }
        for (JsonNode e : trace.get("traceEvents")) {
            if (e.path("cat").asText().equals("gpu_user_annotation") && tiny.contains(e.get("args").get("External id").asLong())) {
                tinySpans++;
            }
        }
        assertEquals(30_000, tiny.size());
        assertEquals(0, accounting.get("gpu_annotations").get("not_nested").asLong(), "every span nests: none left out");
        assertEquals(30_000, tinySpans, "each tiny op's span drawn");
        assertEquals(30_020 + steps, accounting.get("gpu_annotations").get("events").asLong(), "and each step's");
        assertStreamsNest(trace, capture + " in steps");
    }

    @Test
    void switchedOffTheTraceIsTheSameLessItsSpans() throws Exception {
        String capture = "h200-kinds/h200-kinds";
        TraceJson.Replayed on = TraceJson.replay(request(capture));
        TraceJson.Replayed off = TraceJson.replay(request(capture).withoutGpuAnnotations());
        long spans = on.trace().get("flagtrace").get("gpu_annotations").get("events").asLong();
        assertTrue(spans > 0 && !off.trace().get("flagtrace").has("gpu_annotations"), "drawn by default, none when off");
        assertEquals(on.result().events() - spans, off.result().events(), "events() counts the spans");
        assertEquals(withoutSpans(on.trace()), withoutSpans(off.trace()), "the trace less its spans and their counts");
    }

    @Test
    void aJournalReplayedWithoutThemHasNone(@TempDir Path dir) throws Exception {
        String capture = "h200-kinds/h200-kinds";
        CaptureJournal.write(request(capture), KernelNameFile.read(Captures.names(capture)).entries(), JournalOptions.to(dir));
        JournalReplay.Request all = new JournalReplay.Request(dir, JournalWindow.ALL, List.of(), Map.of(), 1 << 12);
        JsonNode on = exportJournal(all);
        JsonNode off = exportJournal(all.withoutGpuAnnotations());
        assertTrue(on.get("flagtrace").get("gpu_annotations").get("events").asLong() > 0, "drawn by default");
        assertEquals(withoutSpans(on), withoutSpans(off), "the journal's trace less its spans");
        assertTrue(!off.get("flagtrace").has("gpu_annotations"), "none drawn");
    }

    private static JsonNode exportJournal(JournalReplay.Request request) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        JournalReplay.run(request, out);
        return TraceJson.MAPPER.readTree(out.toByteArray());
    }

    /** The trace without its gpu_user_annotation events, its events count less theirs, and no gpu_annotations block. */
    static JsonNode withoutSpans(JsonNode trace) {
        ObjectNode copy = trace.deepCopy();
        ArrayNode events = (ArrayNode) copy.get("traceEvents");
        for (int i = events.size() - 1; i >= 0; i--) {
            if (events.get(i).path("cat").asText().equals("gpu_user_annotation")) {
                events.remove(i);
            }
        }
        ObjectNode block = (ObjectNode) copy.get("flagtrace");
        block.remove("ring_full"); // the producer's waits: a measurement of each run
        JsonNode spans = block.remove("gpu_annotations");
        // put in both traces, so both hold the count as the same kind of number node
        block.put("events", block.get("events").asLong() - (spans == null ? 0 : spans.get("events").asLong()));
        return copy;
    }

    private static CaptureReplay.Request request(String capture) {
        return CaptureReplay.Request.of(CaptureBytes.load(Captures.capture(capture)), capture)
                .ops(OpsJsonlReader.read(Captures.ops(capture)))
                .kernelNames(KernelNameFile.read(Captures.names(capture))).devices(TestDevices.h200()).ringSize(1 << 12)
                .build();
    }

    private static List<String> keys(JsonNode args) {
        List<String> out = new ArrayList<>();
        args.fieldNames().forEachRemaining(out::add);
        return out;
    }

    private static void widen(Map<Long, Map<Long, long[]>> spans, long op, long stream, long start, long end) {
        long[] s = spans.computeIfAbsent(op, x -> new HashMap<>()).computeIfAbsent(stream, x -> new long[] {start, end});
        s[0] = Math.min(s[0], start);
        s[1] = Math.max(s[1], end);
    }

    /** The event's row as one key: its device (pid) and stream (tid). */
    private static long stream(JsonNode e) {
        return (e.get("pid").asLong() << 32) | (e.get("tid").asLong() & 0xFFFF_FFFFL);
    }

    /** A ts or dur of the trace (µs, three decimals) in ns, exactly. */
    private static long ns(JsonNode micros) {
        return new java.math.BigDecimal(micros.asText()).movePointRight(3).longValueExact();
    }
}
