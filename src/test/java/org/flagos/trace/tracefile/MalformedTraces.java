package org.flagos.trace.tracefile;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPOutputStream;

/**
 * The shared table of malformed (and merely odd) trace files: each case a file builder, the exit code
 * every command that reads traces must give it (0 read, 1 refused) and, for a refusal, the words of its
 * one line. Each case starts from one small valid merged trace, which every reader takes (summary,
 * report, tables, merge, {@code summary --ranks}), and breaks one thing. Run through the reader
 * ({@code TraceReaderCasesTest}) and through each command ({@code cli.MalformedTracesCliTest}).
 */
public final class MalformedTraces {
    /** Builds a case's file in a directory. */
    public interface Builder {
        Path write(Path dir) throws IOException;
    }

    /**
     * One case.
     *
     * @param name  what it is
     * @param build its file
     * @param exit  0: every command reads it; 1: every command refuses it in one line
     * @param words for a refusal, the line after the file's name (null: read)
     */
    public record Case(String name, Builder build, int exit, String words) {
        @Override
        public String toString() {
            return name;
        }
    }

    /** A ts past 2^62 ns, in words. */
    private static final String BEYOND = " µs, beyond ±4611686018427387904 ns";

    private MalformedTraces() {
    }

    /** The two events every case starts with: an op and the kernel it launched, on the merge's slot 0. */
    static final String EVENTS = "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1000,\"tid\":1,\"ts\":10,\"dur\":5,"
            + "\"args\":{\"External id\":1}},\n"
            + "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":1001,\"tid\":7,\"ts\":11,\"dur\":2,"
            + "\"args\":{\"External id\":1,\"device\":0,\"stream\":7}}";

    static final String MERGE_BLOCK = "{\"traces\":1,\"pid_stride\":1000,\"inputs\":[{\"trace\":\"a.json\",\"input\":0,\"slot\":0,"
            + "\"rank\":0,\"pids\":{\"1\":1000,\"0\":1001}}]}";

    /** The valid merged trace with {@code extraEvents} after its two and {@code extraTop} fields before its events. */
    public static String doc(String extraEvents, String extraTop, String mergeBlock) {
        return "{\"schemaVersion\":1," + (extraTop.isEmpty() ? "" : extraTop + ",") + "\"baseTimeNanoseconds\":1000000000,\n"
                + "\"traceEvents\":[\n" + EVENTS + (extraEvents.isEmpty() ? "" : ",\n" + extraEvents) + "\n],\n"
                + "\"deviceProperties\":[{\"id\":0,\"name\":\"H200\"}],\n"
                + "\"flagtrace_merge\":" + mergeBlock + "}\n";
    }

    private static Case ok(String name, String extraEvents) {
        return new Case(name, dir -> write(dir, name, doc(extraEvents, "", MERGE_BLOCK)), 0, null);
    }

    private static Case refused(String name, String text, String words) {
        return new Case(name, dir -> write(dir, name, text), 1, words);
    }

    private static Path write(Path dir, String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name.replaceAll("[^A-Za-z0-9]+", "-") + ".json"), text);
    }

    private static Path writeGz(Path dir, String name, byte[] bytes) throws IOException {
        return Files.write(dir.resolve(name.replaceAll("[^A-Za-z0-9]+", "-") + ".json.gz"), bytes);
    }

    static byte[] gzip(String text) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(out)) {
            z.write(text.getBytes(StandardCharsets.UTF_8));
        }
        return out.toByteArray();
    }

    private static String nested(int depth) {
        return "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"deep\",\"pid\":1000,\"tid\":1,\"ts\":12,\"dur\":1,\"args\":"
                + "[".repeat(depth - 3) + "]".repeat(depth - 3) + "}";
    }

    private static String anchors(String realtime) {
        return "\"flagtrace\":{\"events\":2,\"clock_anchors\":[{\"at\":\"start\",\"realtime_ns\":" + realtime
                + ",\"monotonic_ns\":1,\"trace_ns\":1,\"bound_ns\":100}]}";
    }

    /** Every case. */
    public static List<Case> all() {
        return List.of(
                ok("a valid merged trace", ""),
                ok("a pid that is an object", "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"x\",\"pid\":{\"a\":1},\"tid\":1,\"ts\":12,\"dur\":1}"),
                ok("a pid past 64 bits", "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"x\",\"pid\":18446744073709551621,\"tid\":1,\"ts\":12,\"dur\":1}"),
                ok("a ts that is a string", "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"x\",\"pid\":1000,\"tid\":1,\"ts\":\"12\",\"dur\":1}"),
                ok("a negative dur", "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"x\",\"pid\":1000,\"tid\":1,\"ts\":12,\"dur\":-1}"),
                ok("a ts of null", "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"x\",\"pid\":1000,\"tid\":1,\"ts\":null,\"dur\":1}"),
                ok("args nested 64 deep", nested(64)),
                refused("a ts of 1e9999999", doc("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"x\",\"pid\":1000,\"tid\":1,\"ts\":1e9999999,\"dur\":1}", "",
                        MERGE_BLOCK), "is not a trace: the event on line 5 has a ts of 1e9999999" + BEYOND),
                refused("a ts of 1e999999999", doc("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"x\",\"pid\":1000,\"tid\":1,\"ts\":1e999999999,\"dur\":1}",
                        "", MERGE_BLOCK), "is not a trace: the event on line 5 has a ts of 1e999999999" + BEYOND),
                refused("a dur of 1e30", doc("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"x\",\"pid\":1000,\"tid\":1,\"ts\":1,\"dur\":1e30}", "",
                        MERGE_BLOCK), "is not a trace: the event on line 5 has a dur of 1e30" + BEYOND),
                refused("a baseTimeNanoseconds of 2^63", doc("", "", MERGE_BLOCK).replace("1000000000", "9223372036854775808"),
                        "is not a trace: baseTimeNanoseconds is 9223372036854775808, beyond ±4611686018427387904"),
                refused("a baseTimeNanoseconds of -2^63", doc("", "", MERGE_BLOCK).replace("1000000000", "-9223372036854775808"),
                        "is not a trace: baseTimeNanoseconds is -9223372036854775808, beyond ±4611686018427387904"),
                refused("a clock anchor of -2^63", doc("", anchors("-9223372036854775808"), MERGE_BLOCK),
                        "is not a trace: its clock anchor 'start' reads -9223372036854775808 ns, beyond ±4611686018427387904 ns"),
                refused("a clock anchor of 2^62 + 1", doc("", anchors("4611686018427387905"), MERGE_BLOCK),
                        "is not a trace: its clock anchor 'start' reads 4611686018427387905 ns, beyond ±4611686018427387904 ns"),
                refused("a clock anchor past 64 bits", doc("", anchors("18446744073709551616"), MERGE_BLOCK),
                        ": realtime_ns must be an integer within 64 bits"), // said Jackson's "Numeric value (...) out of range of long"
                refused("args nested 65 deep", doc(nested(65), "", MERGE_BLOCK), "is not a trace: it nests JSON more than 64 levels deep"),
                refused("args nested 1000 deep", doc(nested(1000), "", MERGE_BLOCK), "is not a trace: it nests JSON more than 64 levels deep"),
                refused("an event that is a number", doc("5", "", MERGE_BLOCK),
                        "is not a trace: traceEvents holds a number where an event object belongs (line 5)"),
                refused("an event of more than 4 MiB", doc("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"x\",\"pid\":1000,\"tid\":1,\"ts\":12,\"dur\":1,"
                        + "\"args\":{\"a\":\"" + "x".repeat(3 << 20) + "\",\"b\":\"" + "y".repeat(3 << 20) + "\"}}", "", MERGE_BLOCK),
                        "is not a trace: the event on line 5 is longer than 4194304 bytes"),
                refused("a string of more than 4 MiB", doc("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" + "x".repeat((4 << 20) + 1)
                        + "\",\"pid\":1000,\"tid\":1,\"ts\":12,\"dur\":1}", "", MERGE_BLOCK), "is not a trace: the event on line 5 is longer than 4194304 bytes"),
                refused("JSON after the document", doc("", "", MERGE_BLOCK) + "{}", "is not a trace: more JSON follows the trace document"),
                refused("a pid_stride of 1", doc("", "", MERGE_BLOCK.replace("\"pid_stride\":1000", "\"pid_stride\":1")),
                        "numbers its ranks' pids 1 apart; this version reads 1000 (flagtrace merge's)"),
                refused("a merged pid outside its slot", doc("", "", MERGE_BLOCK.replace("\"0\":1001", "\"0\":2001")),
                        "is not a merged trace: its merge block gives slot 0's pid 0 the pid 2001, which is not in that slot's 1000 pids"),
                refused("a negative rank", doc("", "\"distributedInfo\":{\"rank\":-1}", MERGE_BLOCK),
                        ": distributedInfo.rank must be a whole number from 0 to 2147483647, not -1"),
                refused("a rank past 32 bits", doc("", "", MERGE_BLOCK.replace("\"rank\":0", "\"rank\":4294967296")),
                        ": flagtrace_merge.inputs.rank must be a whole number from 0 to 2147483647, not 4294967296"),
                refused("an event with two names", doc("{\"ph\":\"X\",\"cat\":\"Trace\",\"name\":\"a\",\"name\":\"b\",\"pid\":1000,"
                        + "\"tid\":1,\"ts\":0,\"dur\":30}", "", MERGE_BLOCK), "is not a trace: an object has its \"name\" twice at line 5, column 42"),
                refused("traceEvents that is not an array", "{\"traceEvents\":{}}", "is not a trace: its traceEvents is not an array"),
                refused("JSON that is no trace", "5", "is not a trace: it is JSON, but not an object with traceEvents"),
                refused("JSON cut short", doc("", "", MERGE_BLOCK).substring(0, 120), "ends in the middle of its JSON (truncated?) at line 3, column 52"),
                new Case("a gzip with a wrong CRC", dir -> {
                    byte[] z = gzip(doc("", "", MERGE_BLOCK));
                    z[z.length - 8] ^= 0x55; // the trailer: CRC-32, then the length
                    return writeGz(dir, "a gzip with a wrong CRC", z);
                }, 1, "is not a whole gzip file (Corrupt GZIP trailer); truncated?"),
                new Case("a gzip cut short", dir -> {
                    byte[] z = gzip(doc("", "", MERGE_BLOCK));
                    return writeGz(dir, "a gzip cut short", java.util.Arrays.copyOf(z, z.length - 4));
                }, 1, "is not a whole gzip file (it ends early); truncated?"),
                new Case("a gzip with JSON after the document", dir -> writeGz(dir, "a gzip with JSON after the document",
                        gzip(doc("", "", MERGE_BLOCK) + "[]")), 1, "is not a trace: more JSON follows the trace document"));
    }
}
