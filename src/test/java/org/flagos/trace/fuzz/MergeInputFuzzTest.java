package org.flagos.trace.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.flagos.trace.merge.ClockChoice;
import org.flagos.trace.merge.TraceMerge;

/**
 * Fuzz target: a trace given to {@code merge} (issue 30, item 6), merged through
 * {@link TraceMerge#run} with a fixed small trace after it, the clocks taken as aligned (so that a
 * trace without anchors is read too). Bad content must be an {@link IOException} in words (a
 * {@code TraceFormatException}, or a gzip stream's own); what merges must be one JSON document with
 * its events and the merge's block, each input named in it.
 *
 * <p>Seeds: {@code src/test/resources/org/flagos/trace/fuzz/MergeInputFuzzTestInputs/merge/}: a
 * replay of the bundled h200-app capture, a merged trace of two, a torch object and a 2021 array.
 */
class MergeInputFuzzTest {
    private static final Path FILE = FuzzScratch.file("merge-input.json");
    private static final Path OTHER = FuzzScratch.write(FuzzScratch.file("merge-other.json"), ("{\"traceEvents\":[{\"ph\":\"X\","
            + "\"cat\":\"cpu_op\",\"name\":\"f\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10}]}").getBytes(StandardCharsets.UTF_8));
    private static final ObjectMapper STRICT = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    @FuzzTest(maxDuration = "3m")
    void merge(byte[] file) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TraceMerge.Result result;
        try {
            result = TraceMerge.run(List.of(FuzzScratch.write(FILE, file), OTHER), out, ClockChoice.AUTO, true);
        } catch (IOException | UncheckedIOException expected) {
            return;
        }
        JsonNode merged = STRICT.readTree(out.toByteArray());
        if (merged == null || !merged.path("traceEvents").isArray()) {
            throw new IllegalStateException("the merged trace has no traceEvents array");
        }
        if (merged.path("flagtrace_merge").path("inputs").size() != 2) {
            throw new IllegalStateException("the merge block does not name both inputs: " + merged.path("flagtrace_merge"));
        }
        if (result.events() < 0 || result.ranks().size() != 2) {
            throw new IllegalStateException("result: " + result);
        }
    }
}
