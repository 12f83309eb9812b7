package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.tracefile.MalformedTraces;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The shared table of malformed traces ({@link MalformedTraces}) through every command that reads traces:
 * summary, report, tables, merge and {@code summary --ranks} each read what the others read and refuse what
 * the others refuse, with the same line, and what merge writes of a file it reads, every reader reads.
 */
class MalformedTracesCliTest {
    @TempDir
    Path dir;

    private final CliRunner cli = new CliRunner();

    static List<MalformedTraces.Case> cases() {
        return MalformedTraces.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void everyCommandReadsOrRefusesAlike(MalformedTraces.Case c) throws Exception {
        Path file = c.build().write(dir);
        Path merged = dir.resolve("merged.json");
        List<String[]> commands = List.of(
                new String[] {"summary", file.toString()},
                new String[] {"summary", "--ranks", file.toString()},
                new String[] {"report", file.toString(), "-o", dir.resolve("report.html").toString()},
                new String[] {"tables", file.toString(), "-o", dir.resolve("events.parquet").toString()},
                new String[] {"merge", file.toString(), "-o", merged.toString()});
        List<String> lines = new ArrayList<>();
        for (String[] command : commands) {
            int exit = cli.run(command);
            String what = c.name() + ": " + String.join(" ", command);
            assertEquals(c.exit(), exit, what + "\n" + cli.stderr());
            assertFalse(cli.stderr().contains("internal error"), what + "\n" + cli.stderr());
            if (c.exit() != 0) {
                lines.add(cli.stderr().strip());
                assertEquals("flagtrace: error: " + file + (c.words().startsWith(":") ? "" : " ") + c.words(), cli.stderr().strip(), what);
            }
        }
        if (c.exit() == 0) { // what merge wrote is read as the input was
            for (String[] command : List.of(new String[] {"summary", merged.toString()}, new String[] {"summary", "--ranks", merged.toString()})) {
                assertEquals(0, cli.run(command), c.name() + ": the merge's output\n" + cli.stderr());
            }
            assertFalse(Files.readString(merged).contains("\"deviceProperties\":[]"), "the merge keeps the devices");
        }
    }
}
