package org.flagos.trace.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The merged trace byte for byte as the merge wrote it before it copied event bytes (the token-by-token
 * copy of 8fff0df, issue 32 item 3): each case's SHA-256 and length were recorded with that code, so a
 * faster copy that changed a byte of any event, label, device or block fails here. The inputs are the
 * bundled multi-rank traces the merge tests use (HTA's torch ranks, aligned by their collectives; the fuzz
 * seeds: a replay, a merged trace, a torch object, a 2021 array), the small ranks of {@link MergeTraces}
 * with anchors, and one trace of every form an event's bytes may take that a plain copy would get wrong
 * (white space, escapes Jackson writes otherwise, non-ASCII and surrogates, string pids and ids, numbers
 * as written, labels and unusable events left out).
 *
 * <p>Two changes by design since, both ids the token copy left as they were: {@code args.correlation} and
 * {@code args["External id"]} when an object came before them in the same args, and torch 1.8-1.9's
 * {@code args["external id"]} (the reader's External id under its 2021 name); they are renumbered now as every
 * other id. The odd trace's {@code nested} event holds both, in two of the last case's inputs (2 + 2 bytes more);
 * the third case's 2021 trace has two {@code external id}s (2 bytes more). Those two digests are re-recorded; the
 * other three cases hold neither and are the token copy's bytes still.
 */
class MergeIdentityTest {
    private static final Path HTA = Path.of("src/test/resources/hta");
    private static final Path SEEDS = Path.of("src/test/resources/org/flagos/trace/fuzz/MergeInputFuzzTestInputs/merge");

    @TempDir
    Path dir;

    /** Events whose bytes differ from what Jackson writes of them, each in its own way; valid JSON, a trace the reader takes. */
    static final String ODD_EVENTS = String.join(",\n",
            "{ \"ph\" : \"X\", \"cat\": \"cpu_op\",\n  \"name\": \"spaced  name\", \"pid\": 7, \"tid\": 1, \"ts\": 1.5, \"dur\": 2 ,"
                    + " \"args\": { \"External id\": 12, \"correlation\" : 5 } }",
            "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\\/b \\u0041 \\u00e9 \\u001f \\u001F \\t\\n\\\"q\\\" \\\\\",\"pid\":0,\"tid\":7,"
                    + "\"ts\":3,\"dur\":1,\"args\":{\"correlation\":5,\"External id\":12,\"device\":0,\"stream\":7}}",
            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"caf\u00e9 \u4e2d\u6587 \ud83d\ude00 \\ud83d\\ude00 \\ud800 lone\",\"pid\":7,\"tid\":1,"
                    + "\"ts\":4.25,\"dur\":1}",
            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"strpid\",\"pid\":\"Spans\",\"tid\":\"t\",\"ts\":5.0001,\"dur\":1.5e0}",
            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"exp\",\"pid\":7.5,\"tid\":1,\"ts\":6e2,\"dur\":1E-3,\"id\":1.5}",
            "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"f\",\"id\":\"abc\\\"\u00e9\",\"pid\":7,\"tid\":1,\"ts\":-7}",
            "{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"f\",\"id\":4503599627370,\"pid\":7,\"tid\":1,\"ts\":8,\"bp\":\"e\"}",
            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"nested\",\"pid\":7,\"tid\":1,\"ts\":9,\"dur\":1,\"args\":{\"shape\":{\"a\":[1,{\"b\":null}]},"
                    + "\"External id\":13,\"correlation\":6,\"external id\":14,\"list\":[true,false,null,-0,0.10,1e+2]}}",
            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"argsarray\",\"pid\":8,\"tid\":1,\"ts\":10,\"dur\":1,\"args\":[{\"correlation\":1}],"
                    + "\"id\":true}",
            "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":7,\"tid\":0,\"ts\":0,\"args\":{\"name\":\"py \\\"worker\\\"\"}}",
            "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":7,\"tid\":0,\"args\":{\"sort_index\":3}}",
            "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":7,\"tid\":1,\"args\":{\"name\":\"main\"}}",
            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"unusable\",\"pid\":7,\"tid\":1,\"ts\":\"12\",\"dur\":1}",
            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"negative\",\"pid\":7,\"tid\":1,\"ts\":12,\"dur\":-1}",
            "{\"ph\":\"i\",\"name\":\"no pid\",\"ts\":13,\"s\":\"g\",\"ctrl\":\"\u007f\"}",
            "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"big\",\"pid\":9223372036854775807,\"tid\":-3,\"ts\":123456789012.123,\"dur\":0,"
                    + "\"args\":{\"External id\":-4,\"correlation\":9007199254740}}",
            "{}");

    private static Path odd(Path dir) throws Exception {
        String json = "{\"traceEvents\" : [\n" + ODD_EVENTS + "\n] , \"deviceProperties\":[{\"id\":0,\"name\":\"d\\u00e9v\"}],"
                + "\"baseTimeNanoseconds\":5000}";
        return Files.write(dir.resolve("odd.json"), json.getBytes(StandardCharsets.UTF_8));
    }

    /** The merged bytes' length and SHA-256; each trace named by its file name (the merge writes the names given). */
    private static String digest(List<Path> traces, boolean assumeAligned) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        List<String> names = new ArrayList<>();
        traces.forEach(t -> names.add(t.getFileName().toString()));
        TraceMerge.run(traces, names, out, ClockChoice.AUTO, assumeAligned);
        byte[] bytes = out.toByteArray();
        String dump = System.getProperty("merge.identity.dump");
        if (dump != null) { // to diff a failure against the bytes of an older build
            Files.createDirectories(Path.of(dump));
            Files.write(Path.of(dump, "case-" + traces.get(0).getFileName() + "-" + traces.size() + ".json"), bytes);
        }
        return bytes.length + " " + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    static List<String> digests(Path dir) throws Exception {
        List<String> got = new ArrayList<>();
        got.add(digest(List.of(HTA.resolve("sampled_rank-1.json.gz"), HTA.resolve("sampled_rank-0.json.gz")), false));
        got.add(digest(List.of(HTA.resolve("nccl_data.json.gz"), HTA.resolve("cpu_only_rank-34.json.gz")), true));
        got.add(digest(List.of(SEEDS.resolve("h200-app-replay.json"), SEEDS.resolve("merged-two.json"), SEEDS.resolve("tiny-object.json"),
                SEEDS.resolve("tiny-2021-array.json")), true));
        got.add(digest(List.of(MergeTraces.trace(dir, 1, "", 2_000L), MergeTraces.trace(dir, 0, "", 1_000L)), false));
        got.add(digest(List.of(odd(dir), HTA.resolve("simple_add_trace.json.gz"), MergeTraces.trace(dir, 1, ODD_EVENTS, null)), true));
        return got;
    }

    /**
     * Prints the digests of the merge on the class path, into scratch folder {@code args[0]}: how they were recorded, with
     * the build of 8fff0df first on the class path ({@code java -cp OLD.jar:LIB/*:target/test-classes ...MergeIdentityTest DIR}).
     */
    public static void main(String[] args) throws Exception {
        digests(Path.of(args[0])).forEach(System.out::println);
    }

    @Test
    void theMergedBytesAreTheTokenCopysBytes() throws Exception {
        List<String> got = digests(dir);
        if (Boolean.getBoolean("merge.identity.print")) {
            got.forEach(System.out::println);
        }
        assertEquals(List.of(
                "3164292 e05560b0d4a67ac309f2c90b7b1f7b419b23e91f4ea0e543626efcc7f4399305",
                "7701966 1cd709c246470844c98930150f613b774917e40f01091087e47feee16273e6ab",
                // 8fff0df: 144855 224b7ef7...; tiny-2021-array's external id 4 (op and kernel) now 19, as 4 * 4 + 3
                "144857 ccda048453e48680e98ba5cc20c2297888aec7b69614bb3a9a6bc7cde0891048",
                "3050 b0b1beb32c7107326f03b4c2da3de48b2df67b42ce05b7e8cd61b71bf7bfdc12",
                // 8fff0df: 244793 d60f9f14...; its nested event's External id 13, correlation 6 and external id 14 now 40,
                // 19 and 43 (slot 1), 41, 20 and 44 (slot 2), as their ids elsewhere
                "244795 fa7b7bfdf48c082a93457ef1e248c52151e22c0969ce22927ba00ce65768734d"), got);
    }
}
