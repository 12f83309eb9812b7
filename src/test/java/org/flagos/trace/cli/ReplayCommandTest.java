package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.flagos.trace.report.TraceFile;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ReplayCommand}: a bundled capture replayed through the CLI. The count it prints is what the file holds, as the
 * file's format counts; the files beside the capture are read and named; a capture cut short still gives a trace, with
 * exit 3 and a warning; an output on an input's path is refused before anything is read.
 */
class ReplayCommandTest {
    @TempDir
    Path dir;

    private final CliRunner cli = new CliRunner();
    private static final String NAME = "h200-app-tiny2k";

    private static long[] counts(String stdout, String pattern) {
        Matcher m = Pattern.compile(pattern).matcher(stdout);
        assertTrue(m.find(), stdout);
        return new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3))};
    }

    @Test
    void theJsonCountIsTheLengthOfTraceEventsAndTheSidecarsAreNamed() throws Exception {
        Path trace = dir.resolve("t.json");
        Path summary = dir.resolve("s.json");
        assertEquals(0, cli.run("replay", Captures.capture(NAME).toString(), "-o", trace.toString(), "--summary", summary.toString()),
                cli.stderr());
        long[] n = counts(cli.stdout(), "wrote " + Pattern.quote(trace.toString())
                + " \\((\\d+) trace events: (\\d+) records, ops and flow ends, (\\d+) row labels and markers\\) and " + Pattern.quote(summary.toString()));
        JsonNode events = new ObjectMapper().readTree(trace.toFile()).get("traceEvents");
        assertEquals(events.size(), n[0], "the count is traceEvents' length");
        assertEquals(n[0], n[1] + n[2]);
        long labels = 0;
        for (JsonNode e : events) {
            labels += "M".equals(e.path("ph").asText()) ? 1 : 0;
        }
        assertTrue(labels > 0 && labels <= n[2], labels + " row labels within the " + n[2] + " labels and markers");
        assertTrue(cli.stderr().contains(NAME + ".ops.jsonl") && cli.stderr().contains(NAME + ".names.tsv"),
                "the files read beside the capture are named: " + cli.stderr());
        assertTrue(new ObjectMapper().readTree(summary.toFile()).get("rows").size() > 0, "the summary holds the ops");
    }

    @Test
    void thePftraceCountIsItsSlices() throws Exception {
        Path trace = dir.resolve("t.pftrace");
        assertEquals(0, cli.run("replay", Captures.capture(NAME).toString(), "-o", trace.toString()), cli.stderr());
        long[] n = counts(cli.stdout(), "wrote " + Pattern.quote(trace.toString())
                + " \\((\\d+) slices: (\\d+) records and ops, (\\d+) capture span; arrows and row names are not slices in a \\.pftrace\\)");
        assertEquals(1, n[2], "one capture span");
        TraceFile read = TraceFile.read(trace, TraceFile.DEFAULT_MAX_EVENTS, dir);
        assertEquals(n[0], read.events() + read.otherEvents() + read.invalidEvents(), "every slice the file holds is one the count counts");
    }

    @Test
    void aCaptureCutShortGivesItsWholeRecordsAndExitThree() throws Exception {
        byte[] whole = Files.readAllBytes(Captures.capture(NAME));
        Path cut = Files.write(dir.resolve("cut.fltrbuf"), Arrays.copyOf(whole, whole.length - 100));
        Files.copy(Captures.ops(NAME), dir.resolve("cut.ops.jsonl"));
        Path trace = dir.resolve("cut.json");
        assertEquals(3, cli.run("replay", cut.toString(), "-o", trace.toString()), cli.stderr());
        assertTrue(cli.stderr().contains("flagtrace: warning: " + cut + " is cut short"), cli.stderr());
        assertTrue(new ObjectMapper().readTree(trace.toFile()).get("traceEvents").size() > 0, "the trace holds what came before the cut");
        Path full = dir.resolve("full.json");
        assertEquals(0, cli.run("replay", Captures.capture(NAME).toString(), "-o", full.toString()), cli.stderr());
        assertTrue(new ObjectMapper().readTree(trace.toFile()).get("traceEvents").size()
                <= new ObjectMapper().readTree(full.toFile()).get("traceEvents").size());
    }

    @Test
    void anOutputOnAnInputsPathIsUsageAndNothingIsWritten() throws Exception {
        Path capture = Files.copy(Captures.capture(NAME), dir.resolve("c.fltrbuf"));
        Path ops = Files.copy(Captures.ops(NAME), dir.resolve("c.ops.jsonl"));
        long before = Files.size(ops);
        assertEquals(2, cli.run("replay", capture.toString(), "-o", dir.resolve("t.json").toString(), "--summary", ops.toString()));
        assertEquals(before, Files.size(ops), "the ops file is left as it was");
        assertFalse(Files.exists(dir.resolve("t.json")), "refused before anything is read or written");
        assertEquals(1, cli.stderr().strip().split("\n").length, cli.stderr());
    }
}
