package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.report.KeyAverages;
import org.flagos.trace.report.KeyAveragesTable;
import org.flagos.trace.report.SortKey;
import org.flagos.trace.report.TraceFile;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TorchTables;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One table layout wherever a summary is printed (issue: demo/replay printed 6 columns, summary
 * torch's 11 columns, 198 characters wide): demo, replay and summary print the same header for the
 * same capture, every line fits a 100-column terminal, and --wide still prints torch's own table.
 */
class TableLayoutTest {
    @TempDir
    Path dir;

    private final CliRunner cli = new CliRunner();

    /** The table's first three lines (separator, header, separator) of what the last run printed. */
    private List<String> head() {
        List<String> lines = cli.stdout().lines().filter(l -> !l.startsWith("flagtrace demo:")).toList();
        return lines.subList(0, 3);
    }

    private void everyLineFits(String what) {
        int lines = 0;
        for (String line : cli.stdout().lines().toList()) {
            if (line.startsWith("wrote ") || line.startsWith("open ") || line.startsWith("decoded:")
                    || line.startsWith("dropped ") || line.startsWith("without ") || line.startsWith("flagtrace demo:")) {
                continue; // counts and paths, not the table
            }
            assertTrue(line.length() <= KeyAveragesTable.COMPACT_WIDTH, what + ": " + line.length() + " chars: " + line);
            lines++;
        }
        assertTrue(lines > 8, what + " printed a table: " + cli.stdout());
    }

    @Test
    void demoReplayAndSummaryPrintOneLayoutThatFits100Columns() {
        Path demo = dir.resolve("demo");
        assertEquals(0, cli.run("demo", "-o", demo.toString()), cli.stderr());
        everyLineFits("demo");
        List<String> demoHead = head();
        assertTrue(demoHead.get(1).contains("Self CUDA") && demoHead.get(1).contains("# of Calls"), demoHead.get(1));

        Path trace = dir.resolve("app.json");
        assertEquals(0, cli.run("replay", Captures.capture("h200-app").toString(), "--ops", Captures.ops("h200-app").toString(),
                "-o", trace.toString()), cli.stderr());
        everyLineFits("replay");
        assertEquals(demoHead, head(), "replay prints the demo's layout");

        assertEquals(0, cli.run("summary", demo.resolve("trace.json").toString()), cli.stderr());
        everyLineFits("summary");
        assertEquals(demoHead, head(), "summary of the demo's trace prints the demo's layout");
    }

    @Test
    void everyBundledH200TraceSummarisesWithin100Columns() {
        List<Path> traces = new ArrayList<>();
        for (String capture : List.of("h200-app", "h200-app-tiny2k", "h200-mt4", "h200-java-parity")) {
            Path trace = dir.resolve(capture + ".json");
            assertEquals(0, cli.run("replay", Captures.capture(capture).toString(), "--ops", Captures.ops(capture).toString(),
                    "-o", trace.toString()), cli.stderr());
            everyLineFits("replay " + capture);
            traces.add(trace);
        }
        traces.add(Path.of("src/test/resources/torch-reference/torch_trace.json")); // torch's own, long kernel names
        for (Path trace : traces) {
            assertEquals(0, cli.run("summary", trace.toString()), cli.stderr());
            everyLineFits("summary " + trace.getFileName());
        }
    }

    @Test
    void wideIsTorchsOwnTable() throws Exception {
        Path torch = Path.of("src/test/resources/torch-reference/torch_trace.json");
        assertEquals(0, cli.run("summary", torch.toString(), "--wide", "--sort", "self_device_time_total", "--limit", "40"),
                cli.stderr());
        String expected = KeyAveragesTable.render(KeyAverages.of(TraceFile.read(torch)), SortKey.SELF_DEVICE_TIME_TOTAL, 40);
        assertEquals(expected, cli.stdout(), "--wide prints the table TorchKeyAveragesTest holds against torch's");
        TorchTables.assertTorchsTableButTheNestedSort(Files.readString(torch.resolveSibling("key_averages.txt")), cli.stdout(),
                "torch's own, byte for byte");
        assertTrue(cli.stdout().lines().anyMatch(l -> l.length() > 150), "torch's eleven columns");

        assertEquals(0, cli.run("demo", "-o", dir.resolve("demo").toString(), "--wide"), cli.stderr());
        assertTrue(head().get(1).contains("Self CPU %") && head().get(1).contains("CUDA time avg"), head().get(1));
    }
}
