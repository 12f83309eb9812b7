package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.flagos.trace.report.MalformedPftraces;
import org.flagos.trace.tracefile.TraceReader;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The table of malformed {@code .pftrace} files ({@link MalformedPftraces}) through every command that reads a
 * {@code .pftrace} (summary and report): each reads what the other reads and refuses what the other refuses, in the
 * same one line and with exit 1, never an internal error, and leaves no output behind. The commands that read JSON
 * traces only (tables, merge, {@code summary --ranks}) refuse every case in one line too: the same line where the file
 * does not start like a Perfetto trace (an empty file, a gzip that cannot be opened), else that they read JSON only.
 */
class MalformedPftracesCliTest {
    @TempDir
    Path dir;

    private final CliRunner cli = new CliRunner();

    static List<MalformedPftraces.Case> cases() throws IOException {
        return MalformedPftraces.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void everyPftraceReaderReadsOrRefusesAlike(MalformedPftraces.Case c) throws Exception {
        Path file = c.build().write(dir);
        Path report = dir.resolve("report.html");
        Path json = dir.resolve("summary.json");
        for (String[] command : List.of(new String[] {"summary", file.toString(), "--json", json.toString()},
                new String[] {"report", file.toString(), "-o", report.toString()})) {
            int exit = cli.run(command);
            String what = c.name() + ": " + String.join(" ", command);
            assertEquals(c.exit(), exit, what + "\n" + cli.stderr());
            assertFalse(cli.stderr().contains("internal error"), what + "\n" + cli.stderr());
            if (c.exit() != 0) {
                assertEquals("flagtrace: error: " + file + " " + c.words(), cli.stderr().strip(), what);
                assertFalse(Files.exists(report) || Files.exists(json), what + ": no output left behind");
            }
        }
        if (c.exit() == 0) {
            assertTrue(Files.readString(json).contains("\"aten::mm\""), c.name() + ": the op is summarised");
            assertTrue(Files.readString(report).contains("gemm"), c.name() + ": the kernel is reported");
        }
        for (String[] command : List.of(new String[] {"summary", "--ranks", file.toString()},
                new String[] {"tables", file.toString(), "-o", dir.resolve("events.parquet").toString()},
                new String[] {"merge", file.toString(), "-o", dir.resolve("merged.json").toString()})) {
            String what = c.name() + ": " + String.join(" ", command);
            assertEquals(1, cli.run(command), what + "\n" + cli.stderr());
            String line = cli.stderr().strip();
            String perfetto = "flagtrace: error: " + file + " " + TraceReader.PERFETTO_REFUSED;
            assertTrue(line.equals(perfetto) || c.words() != null && line.equals("flagtrace: error: " + file + " " + c.words()),
                    what + "\n" + line);
        }
    }
}
