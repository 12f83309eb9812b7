package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.flagos.trace.tracefile.MalformedTraces;
import org.flagos.trace.tracefile.TraceReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The summary's fast path ({@link SummaryScan}) against the one reader: whatever stretch of events it takes, the
 * reader takes too and hands the summary the same events, field for field; whatever the reader refuses, it does not
 * take. Over every middle chunk of the bundled real traces, every case of the shared table of malformed traces, a set
 * of agitators (a field twice, escapes, UTF-8, numbers at the edges, a cut, a garbage line) and random damage.
 */
class SummaryScanTest {
    @TempDir
    Path dir;

    /** The reader's events for the stretch {@code events} (wrapped as a trace wraps them), or the reason it refuses. */
    static Object read(byte[] events) {
        ByteArrayOutputStream doc = new ByteArrayOutputStream();
        doc.writeBytes("{\"traceEvents\":[".getBytes(StandardCharsets.US_ASCII));
        doc.writeBytes(events);
        doc.writeBytes("]}".getBytes(StandardCharsets.US_ASCII));
        ChunkedTraceReadTest.Calls calls = new ChunkedTraceReadTest.Calls();
        try {
            TraceReader.read(new ByteArrayInputStream(doc.toByteArray()), Path.of("t.json"), TraceReader.Options.FIELDS,
                    e -> SummaryEvents.handOn(e, calls));
        } catch (IOException e) {
            return e.getMessage();
        }
        return calls.calls;
    }

    /** The scan's events for the stretch, or null where it leaves the stretch to the reader. */
    static List<String> scan(byte[] events) throws IOException {
        byte[] b = Arrays.copyOf(events, events.length + SummaryScan.SLACK + 5); // zeros after: the scan's end
        Arrays.fill(b, events.length + 1, b.length, (byte) 'x'); // bytes past the 0 are never taken
        SummaryEvents kept = new SummaryEvents(4);
        try {
            new SummaryScan().scan(b, 0, events.length, kept, () -> false);
        } catch (SummaryScan.Unusual e) {
            return null;
        }
        ChunkedTraceReadTest.Calls calls = new ChunkedTraceReadTest.Calls();
        kept.replay(0, kept.size(), 0, calls);
        return calls.calls;
    }

    /** Whether the scan takes {@code events}; where it does, the reader takes them too, with the same events. */
    static boolean agrees(String what, byte[] events) throws IOException {
        List<String> scanned = scan(events);
        if (scanned == null) {
            return false;
        }
        Object read = read(events);
        if (read instanceof String refusal) {
            fail(what + ": the scan took what the reader refuses: " + refusal);
        }
        assertEquals(read, scanned, what);
        return true;
    }

    static boolean agrees(String what, String events) throws IOException {
        return agrees(what, events.getBytes(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @MethodSource("org.flagos.trace.report.ChunkedTraceReadTest#traces")
    void everyMiddleChunkOfTheBundledTracesIsReadAsTheReaderReadsIt(String which) throws Exception {
        Path json = ChunkedTraceReadTest.trace(dir, which);
        long size = Files.size(json);
        int scanned = 0;
        int chunks;
        try (FileChannel f = FileChannel.open(json)) {
            TraceChunks.Plan plan = TraceChunks.plan(f, size, size / 40, size / 20);
            long[] cuts = plan.cuts();
            chunks = plan.middleChunks();
            for (int k = 1; k < cuts.length; k++) {
                byte[] chunk = TraceChunks.read(f, cuts[k - 1] + 1, (int) (cuts[k] - cuts[k - 1] - 1));
                scanned += agrees(which + " chunk " + k, chunk) ? 1 : 0;
            }
        }
        assertTrue(chunks >= 10, which + ": " + chunks + " chunks");
        if (which.startsWith("capture:")) {
            assertEquals(chunks, scanned, which + ": flagtrace's own traces are of the common form throughout");
        } else {
            assertTrue(scanned > 0, which + ": no chunk of torch's trace scanned");
        }
    }

    /** The events region of a case's file, where it has one: what lies between {@code "traceEvents":[} and the array's end. */
    static byte[] eventsOf(String text) {
        int from = text.indexOf("\"traceEvents\":[\n");
        int to = text.lastIndexOf("\n],\n\"deviceProperties\"");
        return from < 0 || to < from ? null : text.substring(from + "\"traceEvents\":[\n".length(), to).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theMalformedCasesEventsAreTakenOnlyAsTheReaderTakesThem() throws Exception {
        int cases = 0;
        int taken = 0;
        for (MalformedTraces.Case c : MalformedTraces.all()) {
            Path file = c.build().write(dir);
            if (file.toString().endsWith(".gz")) {
                continue;
            }
            byte[] events = eventsOf(Files.readString(file));
            if (events == null) {
                continue;
            }
            cases++;
            taken += agrees(c.name(), events) ? 1 : 0; // a refused case's events: never taken (agrees fails where they are)
        }
        assertTrue(cases >= 20, cases + " cases with an events array");
        assertTrue(taken >= 5, "the valid cases' events are scanned: " + taken);
    }

    /** A kernel, a runtime call, a flow, a [memory] instant and a collective: the common form, one a line. */
    static final String GOOD = String.join(",\n",
            "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm<float>\",\"pid\":0,\"tid\":7,\"ts\":1000.5,\"dur\":2.25,"
                    + "\"args\":{\"External id\":12,\"device\":0,\"grid\":[1,2,3],\"bandwidth\":34.13333333333333,\"n\":null}}",
            "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":559,\"tid\":2501623808,\"ts\":999.125,"
                    + "\"dur\":3,\"args\":{\"external id\":\"12\",\"cbid\":211,\"correlation\":18446744073709551615}}",
            "{\"ph\":\"s\",\"id\":6,\"pid\":559,\"tid\":2501623808,\"ts\":999.125,\"cat\":\"ac2g\",\"name\":\"ac2g\"}",
            "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1001,\"ts\":1001,\"s\":\"t\",\"args\":{\"Total Allocated\":4096,"
                    + "\"Device Type\":1,\"Device Id\":0,\"device\":3,\"Bytes\":-512}}",
            "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm *, unsigned long, ncclWork *)\","
                    + "\"pid\":\"0\",\"tid\":\"stream 7\",\"ts\":1003,\"dur\":40,\"args\":{\"In msg nelems\":1048576,"
                    + "\"Out msg nelems\":1048576,\"dtype\":\"Float\",\"Group size\":8,\"Process Group Name\":\"0\"}}",
            " \t{ \"ph\" : \"X\" ,\r\n \"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":-1,\"tid\":1,\"ts\":-5,\"dur\":0}\n");

    /** The good events with {@code bad} among them. */
    static String with(String bad) {
        return GOOD + ",\n" + bad + ",\n" + GOOD;
    }

    @Test
    void theCommonFormIsScannedAndOtherFormsAgreeOrGoToTheReader() throws Exception {
        assertTrue(agrees("the common form", GOOD));
        // taken by the scan, as the reader takes them
        String[] taken = {
            "{}",
            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":\"12\",\"dur\":1}", // a ts not a number: unusable
            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":12,\"dur\":-0.001}", // a negative dur
            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1.2345678e3,\"dur\":1.0005}", // the exact path
            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1.5,\"tid\":{\"a\":[1,{}]},\"ts\":12,\"dur\":1}", // no pid, no tid
            "{\"ph\":\"X\",\"cat\":5,\"name\":[\"a\"],\"pid\":true,\"tid\":null,\"ts\":null,\"dur\":false}",
            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"Grüße µs 数\",\"pid\":\"p\",\"tid\":\"-3\",\"ts\":12,\"dur\":1}", // UTF-8 of 2, 3 bytes
            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":12,\"dur\":1,\"args\":{\"s\":\"\\\"q\\\\ \\/ \\b\\f\\n\\r\\t \\u00e9\"}}",
            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":12,\"dur\":1,\"args\":{\"External id\":1.5,\"device\":\"x\"}}",
            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":12,\"dur\":1,\"args\":{\"External id\":2,\"external id\":3}}",
            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":12,\"dur\":1,\"args\":{\"dtype\":7,\"In msg nelems\":\"9\"}}",
            "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":\"1002\",\"ts\":5,\"args\":{\"Total Allocated\":-1,\"inDevice\":2}}",
            "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1002,\"ts\":5,\"dur\":\"x\",\"args\":7}",
            "{\"ph\":\"\",\"name\":\"\",\"\":1,\"args\":{\"\":2}}",
            "{\"ph\":\"X\",\"name\":\"a\u007f\",\"cat\":\"c\",\"ts\":0,\"dur\":999999999999.999,\"args\":{\"s\":\"\\u007f\"}}", // DEL
            "{\"ph\":\"X\",\"cat\":\"c\",\"name\":\"x\",\"ts\":4611686018427387.904,\"dur\":0}", // 2^62 ns: the bound itself
            "{\"ph\":\"X\",\"cat\":\"c\",\"name\":\"x\",\"ts\":12,\"dur\":1,\"args\":" + "[".repeat(14) + "]".repeat(14) + "}",
        };
        for (String t : taken) {
            assertTrue(agrees(t, with(t)), "taken: " + t);
        }
        // left to the reader: it refuses them, or takes them in a form the scan leaves alone
        String[] left = {
            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"name\":\"b\",\"pid\":1,\"tid\":2,\"ts\":5,\"dur\":5}", // a field twice
            "{\"ph\":\"X\",\"name\":\"a\",\"args\":{\"device\":1,\"device\":2}}", // twice in args
            "{\"ph\":\"X\",\"name\":\"a\",\"args\":{\"l\":[{\"k\":1,\"k\":2}]}}", // twice deeper
            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\\\"b\",\"ts\":1,\"dur\":1}", // an escape in a text the summary reads
            "{\"ph\":\"X\",\"cat\":\"cpu_\\u006fp\",\"name\":\"a\",\"ts\":1,\"dur\":1}",
            "{\"ph\":\"X\",\"na\\u006de\":\"a\",\"ts\":1,\"dur\":1}", // an escaped name: the reader reads it as name
            "{\"ph\":\"X\",\"name\":\"a\",\"pid\":\"\\u0031\",\"ts\":1,\"dur\":1}",
            "{\"ph\":\"X\",\"name\":\"a\",\"args\":{\"s\":\"\\x\"}}", // no such escape
            "{\"ph\":\"X\",\"name\":\"a\",\"args\":{\"s\":\"\\u00g0\"}}",
            "{\"ph\":\"X\",\"name\":\"a\tb\",\"ts\":1,\"dur\":1}", // a control in a string
            "{\"ph\":\"X\",\"name\":\"\uD83D\uDE00\",\"ts\":1,\"dur\":1}", // four bytes of UTF-8
            "{\"ph\":\"X\",\"name\":\"a\",\"pid\":12345678901234567890,\"ts\":1,\"dur\":1}", // a pid past 18 digits
            "{\"ph\":\"X\",\"name\":\"a\",\"args\":{\"External id\":18446744073709551615}}",
            "{\"ph\":\"X\",\"name\":\"a\",\"ts\":01,\"dur\":1}", // a leading zero
            "{\"ph\":\"X\",\"name\":\"a\",\"ts\":1.,\"dur\":1}",
            "{\"ph\":\"X\",\"name\":\"a\",\"ts\":-,\"dur\":1}",
            "{\"ph\":\"X\",\"name\":\"a\",\"ts\":1e,\"dur\":1}",
            "{\"ph\":\"X\",\"name\":\"a\",\"ts\":+1,\"dur\":1}",
            "{\"ph\":\"X\",\"name\":\"a\",\"ts\":NaN,\"dur\":1}",
            "{\"ph\":\"X\",\"name\":\"a\",\"ts\":1e300,\"dur\":1}", // past the bound: the reader refuses the trace
            "{\"ph\":\"X\",\"name\":\"a\",\"ts\":4611686018427387.905,\"dur\":1}",
            "{\"ph\":\"X\",\"name\":\"a\",\"dur\":-1e30}",
            "{\"ph\":\"X\",\"name\":\"a\",\"ts\":1" + "0".repeat(70) + "}",
            "{\"ph\":\"X\",\"name\":\"a\",\"args\":" + "[".repeat(20) + "]".repeat(20) + "}", // deeper than the scan goes
            "{\"ph\":\"X\",\"name\":\"a\",\"args\":" + "[".repeat(70) + "]".repeat(70) + "}", // deeper than the reader takes
            "{\"ph\":\"X\",\"name\":\"a\",}", // a trailing comma
            "{\"ph\":\"X\" \"name\":\"a\"}",
            "{\"ph\":\"X\",\"name\":\"a\",\"v\":tru}",
            "{\"ph\":\"X\",\"name\":\"a\",\"v\":truex}",
            "{'ph':'X'}",
            "[]", // an event that is no object
            "5",
            "garbage line",
            "{\"ph\":\"X\",\"name\":\"a\"} // a comment",
            "{\"ph\":\"X\",\"name\":\"a\"",
            "",
        };
        for (String t : left) {
            assertTrue(!agrees(t, with(t)), "left to the reader: " + t);
        }
        byte[][] bytes = { // not UTF-8: a lone continuation, a cut sequence, an overlong form, a surrogate, 0xFF
            {(byte) 0x80}, {(byte) 0xC3}, {(byte) 0xC0, (byte) 0xAF}, {(byte) 0xE0, (byte) 0x80, (byte) 0xAF},
            {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, {(byte) 0xFF}, {0},
        };
        for (byte[] x : bytes) {
            ByteArrayOutputStream s = new ByteArrayOutputStream();
            s.writeBytes(with("{\"ph\":\"X\",\"name\":\"a\",\"args\":{\"s\":\"").getBytes(StandardCharsets.UTF_8));
            s.writeBytes(x);
            s.writeBytes("\"}}".getBytes(StandardCharsets.UTF_8));
            assertTrue(!agrees(Arrays.toString(x), s.toByteArray()), Arrays.toString(x));
        }
        // cut short anywhere: never taken but as whole events
        byte[] all = with("{}").getBytes(StandardCharsets.UTF_8);
        for (int n = 0; n < all.length; n++) {
            agrees("cut at " + n, Arrays.copyOf(all, n));
        }
    }

    /**
     * Names past what the scan keeps of their sequences ({@link org.flagos.trace.tracefile.FieldNames}: a name with more
     * siblings than it keeps): an object that leaves the kept names is checked for a name twice against the names it
     * took there and those after, in events and in args, as the reader checks it.
     */
    @Test
    void anObjectThatLeavesTheKeptNamesIsStillCheckedForANameTwice() throws Exception {
        StringBuilder forms = new StringBuilder();
        for (int k = 0; k < org.flagos.trace.tracefile.FieldNames.MAX_CHILDREN + 2; k++) { // more second names than kept
            forms.append("{\"ph\":\"X\",\"n").append(k).append("\":1,\"name\":\"a\",\"ts\":1,\"dur\":1,")
                    .append("\"args\":{\"External id\":1,\"a").append(k).append("\":1}},\n");
        }
        String[] left = {
            "{\"ph\":\"X\",\"zz\":1,\"ph\":\"i\"}", // the name the object took before leaving
            "{\"ph\":\"X\",\"zz\":1,\"yy\":2,\"zz\":3}", // a name it checked after
            "{\"ph\":\"X\",\"n0\":1,\"name\":\"a\",\"ts\":1,\"dur\":1,\"args\":{\"External id\":1,\"zz\":1,\"External id\":2}}",
            "{\"ph\":\"X\",\"n0\":1,\"name\":\"a\",\"ts\":1,\"dur\":1,\"args\":{\"External id\":1,\"zz\":1,\"yy\":1,\"zz\":2}}",
        };
        for (String t : left) {
            assertTrue(!agrees(t, forms + t + ",\n" + forms + GOOD), "left to the reader: " + t);
        }
        String[] taken = {
            "{\"ph\":\"X\",\"zz\":1,\"yy\":2,\"name\":\"b\",\"ts\":2,\"dur\":1}",
            "{\"ph\":\"X\",\"n0\":1,\"name\":\"a\",\"ts\":1,\"dur\":1,\"args\":{\"External id\":1,\"zz\":1,\"yy\":2}}",
        };
        for (String t : taken) {
            assertTrue(agrees(t, forms + t + ",\n" + forms + GOOD), "taken: " + t);
        }
    }

    /**
     * The forms of events ({@link EventForm}): an event that repeats a form but for its numbers is read from the form, and
     * every way its numbers may differ (longer, shorter, signed, a fraction or an exponent where an integer was, past 18
     * digits, past the time bound, no number at all) is read as the reader reads it, or left to the reader where it refuses
     * it; anything else that differs (a text, a name, white space) is scanned afresh.
     */
    @Test
    void eventsOfAKnownFormAreReadFromItAsTheReaderReadsThem() throws Exception {
        String kernel = "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":1000.5,\"dur\":2.25,"
                + "\"args\":{\"External id\":12,\"device\":0,\"grid\":[1,2,3],\"Total Allocated\":5,\"In msg nelems\":4}}";
        String memory = "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1001,\"ts\":1001,\"s\":\"t\",\"args\":{\"Total Allocated\":4096,"
                + "\"Device Type\":1,\"Device Id\":0,\"Bytes\":-512}}";
        String[][] numbers = { // in each form, a number and what stands there instead
            {"1000.5", "1000.25"}, {"1000.5", "7"}, {"1000.5", "100000000.125"}, {"1000.5", "-3"}, {"1000.5", "1.0005e3"},
            {"1000.5", "1E2"}, {"1000.5", "0"}, {"1000.5", "-0.5"}, {"2.25", "-2.25"}, {"2.25", "0.001"}, {"2.25", "22"},
            {"\"pid\":0", "\"pid\":3"}, {"\"pid\":0", "\"pid\":-12"}, {"\"pid\":0", "\"pid\":1.5"}, {"\"tid\":7", "\"tid\":70000"},
            {"\"External id\":12", "\"External id\":1"}, {"\"External id\":12", "\"External id\":123456789012345678"},
            {"\"External id\":12", "\"External id\":12.5"}, {"\"External id\":12", "\"External id\":1e1"},
            {"\"External id\":12", "\"External id\":-12"}, {"[1,2,3]", "[10,2.5,-3]"}, {"\"device\":0", "\"device\":99"},
            {"\"In msg nelems\":4", "\"In msg nelems\":400"}, {"\"Total Allocated\":4096", "\"Total Allocated\":1"},
            {"\"Device Type\":1", "\"Device Type\":0"}, {"\"pid\":1001", "\"pid\":2002"}, {"\"Bytes\":-512", "\"Bytes\":512"},
        };
        String[][] refused = { // numbers the reader refuses, or the scan leaves to it
            {"1000.5", "01"}, {"1000.5", "1."}, {"1000.5", "1e300"}, {"1000.5", "4611686018427387.905"}, {"2.25", "-"},
            {"\"pid\":0", "\"pid\":12345678901234567890"}, {"\"External id\":12", "\"External id\":18446744073709551615"},
            {"1000.5", "1" + "0".repeat(70)}, {"2.25", "2.25.5"}, {"[1,2,3]", "[1,2 3]"}, {"1000.5", "+1"},
        };
        String[][] others = { // not numbers: scanned afresh, taken or left as the scan takes them
            {"1000.5", "\"1000.5\""}, {"2.25", "null"}, {"\"pid\":0", "\"pid\":\"0\""}, {"\"External id\":12", "\"External id\":\"12\""},
            {"gemm", "gemv"}, {"\"ts\"", " \"ts\""}, {"\"dur\":2.25", "\"dur\":2.25,\"dur\":3"}, {"[1,2,3]", "[1,2,{}]"},
            {"\"device\":0", "\"device\":0,\"inDevice\":4"}, {"\"kernel\"", "\"cuda_runtime\""},
        };
        int taken = 0;
        for (String form : List.of(kernel, memory)) {
            for (String[][] table : List.of(numbers, refused, others)) {
                for (String[] change : table) {
                    if (!form.contains(change[0])) {
                        continue;
                    }
                    String variant = form.replace(change[0], change[1]);
                    String stretch = String.join(",\n", form, form, variant, form, variant, variant);
                    boolean took = agrees(change[0] + " -> " + change[1], stretch);
                    if (table == numbers) {
                        assertTrue(took, "taken: " + change[1]);
                        taken++;
                    } else if (table == refused) {
                        assertTrue(!took, "left to the reader: " + change[1]);
                    }
                }
            }
        }
        assertTrue(taken >= 25, taken + " variants taken");
        // the forms were used: a long stretch of the two forms' events reads nearly all of them from forms
        SummaryScan scan = new SummaryScan();
        String stretch = String.join(",\n", java.util.Collections.nCopies(500, kernel + ",\n" + memory));
        byte[] b = Arrays.copyOf(stretch.getBytes(StandardCharsets.UTF_8), stretch.length() + SummaryScan.SLACK);
        scan.scan(b, 0, stretch.length(), new SummaryEvents(4), () -> false);
        assertTrue(scan.eventsFromForms() >= 990, scan.eventsFromForms() + " of 1000 events read from their forms");
    }

    @Test
    void randomDamageIsNeverTakenOtherwiseThanByTheReader() throws Exception {
        byte[] good = with("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"z\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}")
                .getBytes(StandardCharsets.UTF_8);
        byte[] alphabet = "{}[]\",:\\ 0123456789.-+eEtrufalsn\u00e9xu\t\n".getBytes(StandardCharsets.UTF_8);
        Random r = new Random(32);
        int taken = 0;
        for (int n = 0; n < 20_000; n++) {
            byte[] b = good.clone();
            for (int edits = 1 + r.nextInt(3); edits > 0; edits--) {
                int at = r.nextInt(b.length);
                byte c = alphabet[r.nextInt(alphabet.length)];
                switch (r.nextInt(3)) {
                    case 0 -> b[at] = c;
                    case 1 -> {
                        byte[] shorter = new byte[b.length - 1];
                        System.arraycopy(b, 0, shorter, 0, at);
                        System.arraycopy(b, at + 1, shorter, at, b.length - at - 1);
                        b = shorter;
                    }
                    default -> {
                        byte[] longer = new byte[b.length + 1];
                        System.arraycopy(b, 0, longer, 0, at);
                        longer[at] = c;
                        System.arraycopy(b, at, longer, at + 1, b.length - at);
                        b = longer;
                    }
                }
            }
            taken += agrees("damage " + n, b) ? 1 : 0;
        }
        assertTrue(taken > 1000, taken + " damaged stretches still taken (and compared)");
    }

    @Test
    void aStretchWithoutItsEndIsRefusedByTheCaller() {
        byte[] b = "{}".getBytes(StandardCharsets.US_ASCII);
        assertThrows(IllegalArgumentException.class, () -> new SummaryScan().scan(b, 0, 2, new SummaryEvents(), () -> false));
        assertThrows(IllegalArgumentException.class,
                () -> new SummaryScan().scan(Arrays.copyOf(b, 4), 0, 2, new SummaryEvents(), () -> false), "too few bytes after it");
    }
}
