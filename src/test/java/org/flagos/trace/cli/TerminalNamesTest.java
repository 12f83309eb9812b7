package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 30, item 6: op and kernel names holding terminal escapes, NUL, CR or line breaks are printed
 * escaped ({@code \x1b}) by summary and analyze, and kept whole in the files they write.
 */
class TerminalNamesTest {
    static final String EVIL = "op\u001b]0;owned\u0007\u001b[2J\u0000x\ry\nz";

    @TempDir
    Path dir;

    private final CliRunner cli = new CliRunner();

    private Path trace() throws Exception {
        ObjectNode root = TraceJson.MAPPER.createObjectNode();
        ArrayNode events = root.putArray("traceEvents");
        ObjectNode op = events.addObject();
        op.put("ph", "X").put("cat", "cpu_op").put("name", EVIL).put("pid", 1).put("tid", 1).put("ts", 10).put("dur", 100);
        op.putObject("args").put("External id", 7);
        ObjectNode launch = events.addObject();
        launch.put("ph", "X").put("cat", "cuda_runtime").put("name", "cudaLaunchKernel").put("pid", 1).put("tid", 1)
                .put("ts", 20).put("dur", 5);
        launch.putObject("args").put("External id", 7).put("correlation", 9);
        ObjectNode kernel = events.addObject();
        kernel.put("ph", "X").put("cat", "kernel").put("name", "k\u001b[31mred").put("pid", 0).put("tid", 7).put("ts", 30).put("dur", 50);
        kernel.putObject("args").put("External id", 7).put("correlation", 9).put("device", 0).put("stream", 7);
        Path trace = dir.resolve("evil.json");
        TraceJson.MAPPER.writeValue(trace.toFile(), root);
        return trace;
    }

    private static void assertPrintable(String text) {
        assertFalse(text.contains("\u001b"), "an escape reached the terminal: " + text);
        assertFalse(text.contains("\u0007") || text.contains("\u0000") || text.contains("\r"), text);
    }

    @Test
    void summaryPrintsEscapedNamesAndWritesThemWhole() throws Exception {
        Path json = dir.resolve("s.json");
        assertEquals(0, cli.run("summary", trace().toString(), "--json", json.toString()), cli.stderr());
        String out = cli.stdout();
        assertPrintable(out);
        assertTrue(out.contains("op\\x1b]0;owned\\x07"), out);
        assertTrue(out.contains("k\\x1b[31mred"), out);
        assertFalse(out.contains("\ny\nz") || out.contains("x\ry"), "a line break in a name breaks no table line");
        assertTrue(Files.readString(json).contains("op\\u001B]0;owned") || Files.readString(json).contains("op\\u001b]0;owned"),
                "the file keeps the name whole");
    }

    @Test
    void analyzePrintsEscapedNames() throws Exception {
        Path table = dir.resolve("evil.parquet");
        assertEquals(0, cli.run("tables", trace().toString(), "-o", table.toString()), cli.stderr());
        Path out = dir.resolve("out");
        assertEquals(0, cli.run("analyze", table.toString(), "--only", "rank_ops", "--format", "json", "-o", out.toString()), cli.stderr());
        assertPrintable(cli.stdout());
        assertTrue(cli.stdout().contains("\\x1b"), cli.stdout());
        JsonNode rows = TraceJson.MAPPER.readTree(out.resolve("rank_ops.json").toFile());
        boolean whole = false;
        for (JsonNode r : rows) {
            whole |= r.toString().contains("\\u001B]0;owned") || EVIL.equals(r.path("name").asText());
        }
        assertTrue(whole, "the JSON file keeps the name whole: " + rows);
    }

    @Test
    void anErrorQuotingANameIsEscaped() throws Exception {
        Path bad = dir.resolve("bad\u001b[2J.json");
        Files.writeString(bad, "not json");
        assertEquals(ExitCodes.FAILED, cli.run("summary", bad.toString()));
        assertPrintable(cli.stderr());
        assertTrue(cli.stderr().contains("bad\\x1b[2J.json"), cli.stderr());
    }
}
