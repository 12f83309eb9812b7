package org.flagos.trace.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.flagos.trace.tracefile.FieldNames;
import org.flagos.trace.tracefile.MalformedTraces;
import org.flagos.trace.tracefile.TraceFormatException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Merge's fast path ({@link EventScan}, {@link EventsCut}) against the one reader's walk, input by input: the same
 * part, facts and counts, or the same refusal in the same words, on the bundled inputs, on every malformed trace of the
 * reader's table and on events of every odd form; and the common form taken by the fast path itself.
 */
class EventScanTest {
    private static final Path HTA = Path.of("src/test/resources/hta");
    private static final Path SEEDS = Path.of("src/test/resources/org/flagos/trace/fuzz/MergeInputFuzzTestInputs/merge");

    @TempDir
    Path dir;

    /** What reading {@code trace} gave: everything the merge goes on with, or the refusal; and whether the fast path read it. */
    private record Read(String what, boolean fast) {
    }

    private Read read(Path trace, boolean fast) throws Exception {
        InputCopy copy;
        try {
            copy = InputCopy.read(trace, dir, () -> false, fast);
        } catch (TraceFormatException e) {
            return new Read("refused: " + e.getMessage(), false);
        }
        try {
            StringBuilder s = new StringBuilder();
            TraceFacts f = copy.facts();
            s.append(copy.events).append(' ').append(copy.labelsReplaced).append(' ').append(copy.leftOutUnusable).append('\n');
            s.append(f.identity()).append(' ').append(f.anchors()).append(' ').append(f.baseNs()).append(' ').append(f.accounting())
                    .append(' ').append(f.devices().size()).append('\n');
            for (Map.Entry<String, CollectiveEnds.Series> e : f.collectives().series().entrySet()) {
                CollectiveEnds.Series series = e.getValue();
                s.append(e.getKey()).append(' ').append(java.util.Arrays.toString(java.util.Arrays.copyOf(series.starts, series.size)))
                        .append(java.util.Arrays.toString(java.util.Arrays.copyOf(series.ends, series.size))).append('\n');
            }
            for (InputCopy.Row row : copy.rows().values()) {
                s.append(row.original).append(' ').append(row.name).append(' ').append(row.device).append('\n');
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            InputCopy.MergedEvents events = new InputCopy.MergedEvents(out);
            try {
                copy.copy(events, 1, 3, 1_500, "rank 1");
                events.flush();
                s.append(out.toString(StandardCharsets.UTF_8));
            } catch (TraceFormatException e) {
                s.append("refused in the copy: ").append(e.getMessage());
            }
            return new Read(s.toString(), copy.fast);
        } finally {
            copy.delete();
        }
    }

    /** Reads {@code trace} both ways: the same; returns whether the fast path took it. */
    private boolean same(Path trace) throws Exception {
        Read full = read(trace, false);
        Read fast = read(trace, true);
        assertEquals(full.what(), fast.what(), trace.toString());
        assertFalse(full.fast());
        try (var parts = Files.list(dir)) {
            assertEquals(0, parts.filter(p -> p.getFileName().toString().endsWith(".part")).count(), "every part deleted");
        }
        return fast.fast();
    }

    @Test
    void theBundledInputsReadAlikeAndTheCommonFormFast() throws Exception {
        List<String> fast = new ArrayList<>();
        for (Path p : List.of(HTA.resolve("sampled_rank-0.json.gz"), HTA.resolve("sampled_rank-1.json.gz"), HTA.resolve("nccl_data.json.gz"),
                HTA.resolve("cpu_only_rank-34.json.gz"), HTA.resolve("simple_add_trace.json.gz"), SEEDS.resolve("h200-app-replay.json"),
                SEEDS.resolve("merged-two.json"), SEEDS.resolve("tiny-object.json"), SEEDS.resolve("tiny-2021-array.json"),
                MergeTraces.trace(dir, 1, "", 2_000L))) {
            if (same(p)) {
                fast.add(p.getFileName().toString());
            }
        }
        // the 2021 array has no top-level object: the reader's; the others are of the common form
        assertEquals(List.of("sampled_rank-0.json.gz", "sampled_rank-1.json.gz", "nccl_data.json.gz", "cpu_only_rank-34.json.gz",
                "simple_add_trace.json.gz", "h200-app-replay.json", "merged-two.json", "tiny-object.json", "rank1.json"), fast);
    }

    @Test
    void everyMalformedTraceIsJudgedAsTheReaderJudgesIt() throws Exception {
        int fast = 0;
        for (MalformedTraces.Case c : MalformedTraces.all()) {
            Path file = c.build().write(dir);
            if (same(file)) {
                fast++;
                assertEquals(0, c.exit(), c.name() + ": a trace the reader refuses is never taken fast");
            }
            Files.delete(file);
        }
        assertTrue(fast > 0, "some of the table's valid traces are of the common form");
    }

    /** Events of every form, each alone after the common ones: read alike; the common form fast, any other by the reader. */
    @Test
    void oddEventsReadAlike() throws Exception {
        String ok = "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":4242,\"tid\":1,\"ts\":%s,\"dur\":1,\"args\":{%s}}";
        List<String> common = List.of(
                "{ \"ph\" : \"X\" ,\r\n\"name\":\"spaced\", \"x\":\"sp\\\"a\\\\c\\ted\", \"pid\": \"str\", \"ts\": 1.5 , \"dur\" : 0 }",
                "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":4242,\"args\":{\"name\":\"py \\\"w\\\" caf\u00e9\"}}",
                "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":7,\"args\":{\"name\":5}}",
                "{\"ph\":\"X\",\"name\":\"u\",\"pid\":4242,\"ts\":\"12\",\"dur\":1}",
                "{\"ph\":\"X\",\"name\":\"n\",\"pid\":4242,\"ts\":12,\"dur\":-1}",
                "{\"ph\":\"s\",\"name\":\"f\",\"id\":\"abc\",\"pid\":-0,\"ts\":-7e2}",
                "{\"ph\":\"s\",\"name\":\"f\",\"id\":\" 17\",\"pid\":1.5,\"ts\":1E+2,\"x\":[[],{},[{}],\"\u4e2d\"]}",
                "{\"id\":99999999999999999999999,\"pid\":null,\"ts\":0.0001}",
                String.format(ok, "3", "\"correlation\":\"5\",\"External id\":-4,\"external id\":1.5,\"Process Group Name\":\"pg\""),
                "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)\",\"pid\":0,\"ts\":5,"
                        + "\"dur\":2,\"args\":{\"Process Group Name\":\"0\"}}",
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\\\"b\",\"pid\":1,\"ts\":1,\"dur\":1}", // a name the merge needs not read
                "{}");
        List<String> other = List.of(
                "{\"ph\":\"X\",\"name\":\"a\\/b\",\"pid\":1,\"ts\":1}", // an escape the writer writes otherwise
                "{\"ph\":\"X\",\"name\":\"\\u0041\",\"pid\":1,\"ts\":1}",
                "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\\\"b\",\"pid\":1,\"ts\":1,\"dur\":1}", // an escape in a text the merge reads
                "{\"ph\":\"M\",\"name\":\"process_\\name\",\"pid\":1}",
                "{\"ph\":\"X\",\"name\":\"\ud83d\ude00\",\"pid\":1,\"ts\":1}", // four bytes of UTF-8
                "{\"p\\u0069d\":1,\"pid\":2}", // a field twice, once escaped
                "{\"pid\":1,\"args\":{\"a\":1,\"a\":2}}", // a field twice
                "{\"pid\":1,\"x\":{\"a\":{\"b\":1,\"b\":1}}}",
                "{\"pid\":01}", "{\"pid\":1.}", "{\"pid\":-}", "{\"pid\":1,}", "{\"pid\":tru}", "{\"pid\":1 \"ts\":2}",
                "{\"pid\":123456789012345678901}", // a pid past 64 bits
                "{\"ph\":\"X\",\"ts\":9999999999999999999}", // past the bound
                "{\"ph\":\"X\",\"ts\":1e400}",
                "{\"ph\":\"X\",\"ts\":4611686018427387.905}",
                "{\"x\":" + "[".repeat(20) + "]".repeat(20) + "}", // deep
                "{\"x\":\"" + "\u0001" + "\"}", // a control character
                "[1]", "5", "{\"pid\":1}x", "{\"Process Group Name\":1,\"args\":{\"Process Group Name\":\"a\\tb\"}}");
        int i = 0;
        for (String event : common) {
            Path t = MergeTraces.trace(dir, 1, event, 2_000L);
            assertTrue(same(t), "common form, fast: " + event);
            Files.delete(t);
            i++;
        }
        for (String event : other) {
            Path t = MergeTraces.trace(dir, 1, event, 2_000L);
            assertFalse(same(t), "not the common form: " + event);
            Files.delete(t);
        }
        // bytes JSON of UTF-8 never has: a stray continuation, a cut sequence, an overlong form, a surrogate
        for (byte[] bad : new byte[][] {{(byte) 0x80}, {(byte) 0xC3}, {(byte) 0xE0, (byte) 0x80, (byte) 0x80},
                {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, {(byte) 0xC0, (byte) 0x80}}) {
            byte[] base = Files.readAllBytes(MergeTraces.trace(dir, 1, "{\"name\":\"@\",\"pid\":1}", 2_000L));
            String s = new String(base, StandardCharsets.ISO_8859_1);
            int at = s.indexOf('@');
            byte[] doc = new byte[base.length - 1 + bad.length];
            System.arraycopy(base, 0, doc, 0, at);
            System.arraycopy(bad, 0, doc, at, bad.length);
            System.arraycopy(base, at + 1, doc, at + bad.length, base.length - at - 1);
            Path t = Files.write(dir.resolve("bad.json"), doc);
            assertFalse(same(t), "no UTF-8: the reader's");
            Files.delete(t);
        }
        assertEquals(common.size(), i);
    }

    /**
     * Field names past what the scan keeps of them ({@link FieldNames}: more children of a name than it keeps, names
     * longer than it keeps, more names than it keeps), and each name twice after its first was found among them: read
     * alike; the trace without a name twice fast, each with one by the reader.
     */
    @Test
    void fieldNamesPastTheKeptOnesReadAlike() throws Exception {
        StringBuilder events = new StringBuilder();
        for (int i = 0; i < 20; i++) { // 20 args of one name each: more than an args name keeps after it
            events.append("{\"ph\":\"X\",\"pid\":1,\"ts\":").append(i).append(",\"args\":{\"k").append(i).append("\":1}},\n");
        }
        String longName = "n".repeat(FieldNames.MAX_NAME + 6);
        for (int i = 0; i < 2; i++) {
            events.append("{\"ph\":\"X\",\"pid\":1,\"").append(longName).append("\":").append(i).append(",\"ts\":1},\n");
        }
        for (int i = 0; i < 1300; i++) { // 16 x 16 x 6 paths of names: more names than it keeps
            events.append("{\"ph\":\"X\",\"x").append(i % 16).append("\":1,\"y").append(i / 16 % 16).append("\":2,\"z").append(i / 256)
                    .append("\":3,\"pid\":1,\"ts\":5,\"args\":{\"correlation\":").append(i).append("}},\n");
        }
        events.append("{\"ph\":\"X\",\"pid\":2,\"ts\":1,\"args\":{\"External id\":4,\"k3\":1,\"correlation\":5}}");
        Path t = MergeTraces.trace(dir, 1, events.toString(), 2_000L);
        assertTrue(same(t), "names past the kept ones, none twice: fast");
        Files.delete(t);
        for (String twice : List.of("{\"ph\":\"X\",\"cat\":\"kernel\",\"ph\":\"X\"}", // a name found, then again
                "{\"ph\":\"X\",\"pid\":1,\"ts\":1,\"args\":{\"External id\":3,\"External id\":4}}",
                "{\"ph\":\"X\",\"x3\":1,\"y15\":2,\"z5\":3,\"y15\":4}", // past the kept names
                "{\"ph\":\"X\",\"pid\":1,\"" + longName + "\":1,\"" + longName + "\":2}",
                "{\"ph\":\"X\",\"pid\":1,\"ts\":1,\"args\":{\"k19\":1,\"k19\":1}}")) {
            t = MergeTraces.trace(dir, 1, events + ",\n" + twice, 2_000L);
            assertFalse(same(t), "a name twice: the reader's: " + twice);
            Files.delete(t);
        }
    }

    /** The document around the events: its lines counted as the reader counts them (the copy names an event by its line). */
    @Test
    void eventLinesAreTheReadersLines() throws Exception {
        String json = "{\"schemaVersion\":1,\r\n\"x\":\"a\\\"traceEvents\\\"\",\r\"y\":[\"traceEvents\",{\"traceEvents\":[1]}],\n\n"
                + "\"traceEvents\" :\r\n [\r\n{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"ts\":1,\"dur\":1},\r{\"ph\":\"X\",\"name\":\"b\",\n"
                + "\"pid\":1,\"ts\":2,\"dur\":1}\n,\n{\"ph\":\"X\",\"name\":\"c\",\"pid\":1,\"ts\":3,\"dur\":1}],\"baseTimeNanoseconds\":5}";
        Path t = Files.writeString(dir.resolve("lines.json"), json);
        assertTrue(same(t));
        InputCopy copy = InputCopy.read(t, dir, () -> false, true);
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            InputCopy.MergedEvents events = new InputCopy.MergedEvents(out);
            TraceFormatException e = org.junit.jupiter.api.Assertions.assertThrows(TraceFormatException.class,
                    () -> copy.copy(events, 0, 1, (1L << 62) - 2_500, "rank 0"));
            // the third event (3 µs) alone passes the bound: lines 7 and 8 for a and b (a lone \r ends a line), 11 for c
            assertTrue(e.getMessage().contains("its event on line 11 "), e.getMessage());
        } finally {
            copy.delete();
        }
    }
}
