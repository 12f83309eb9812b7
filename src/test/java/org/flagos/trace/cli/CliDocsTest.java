package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI's documentation is what the CLI prints: README's usage block is {@code flagtrace --help},
 * docs/cli.md is every command's {@code --help}, and every option a README command line uses exists
 * on that command. {@code mvn test -Dtest=CliDocsTest -Dflagtrace.docs.update=true} rewrites both
 * files from the code.
 */
class CliDocsTest {
    private static final Path README = Path.of("README.md");
    private static final Path CLI_MD = Path.of("docs/cli.md");
    private static final String MARKER = "<!-- flagtrace --help -->\n```\n";
    private static final boolean UPDATE = Boolean.getBoolean("flagtrace.docs.update");

    private final CliRunner cli = new CliRunner();

    private String help(String... command) {
        List<String> args = new ArrayList<>(List.of(command));
        args.add("--help");
        assertEquals(0, cli.run(args.toArray(new String[0])), cli.stderr());
        return cli.stdout();
    }

    private String cliMarkdown() {
        StringBuilder b = new StringBuilder("# Command line reference\n\n"
                + "Every command's `--help`, as `./flagtrace` prints it (generated: `mvn test -Dtest=CliDocsTest"
                + " -Dflagtrace.docs.update=true`; `CliDocsTest` fails when this file and the CLI differ).\n\n"
                + "## flagtrace\n\n```\n" + help() + "```\n");
        for (String command : new String[] {"demo", "replay", "record", "summary", "report", "merge", "tables", "analyze", "diff"}) {
            b.append("\n## flagtrace ").append(command).append("\n\n```\n").append(help(command)).append("```\n");
        }
        return b.toString();
    }

    @Test
    void readmeUsageBlockIsTheTopLevelHelp() throws IOException {
        String readme = Files.readString(README);
        int start = readme.indexOf(MARKER);
        assertTrue(start >= 0, "README has the usage block after " + MARKER.strip());
        start += MARKER.length();
        int end = readme.indexOf("```", start);
        String expected = help();
        if (UPDATE) {
            Files.writeString(README, readme.substring(0, start) + expected + readme.substring(end));
            readme = Files.readString(README);
            end = start + expected.length();
        }
        assertEquals(expected, readme.substring(start, end), "README's block differs from flagtrace --help");
    }

    @Test
    void docsCliMdIsEveryCommandsHelp() throws IOException {
        String expected = cliMarkdown();
        if (UPDATE) {
            Files.writeString(CLI_MD, expected);
        }
        assertEquals(expected, Files.readString(CLI_MD), "docs/cli.md differs from the commands' --help");
    }

    private long printed(Pattern p, int group) {
        Matcher m = p.matcher(cli.stdout());
        assertTrue(m.find(), p + " in " + cli.stdout());
        return Long.parseLong(m.group(group));
    }

    /**
     * The counts the README and docs/formats.md quote are what {@code demo} prints (JSON) and what a replay
     * of the demo's capture to {@code .pftrace} prints: they said 358/281 while the demo printed 378/301.
     */
    @Test
    void theDocsCountsAreWhatTheDemoPrints(@TempDir Path dir) throws IOException {
        assertEquals(0, cli.run("demo", "-o", dir.resolve("demo").toString()), cli.stderr());
        Pattern json = Pattern.compile("wrote \\S+ \\((\\d+) trace events: (\\d+) records, ops and flow ends, (\\d+) row labels and markers\\)");
        long events = printed(json, 1);
        long withFlows = printed(json, 2);
        long labels = printed(json, 3);
        Path in = Files.createDirectories(dir.resolve("in"));
        for (String file : List.of("h200-app.fltrbuf", "h200-app.ops.jsonl", "h200-app.names.tsv")) {
            try (InputStream bundled = CliDocsTest.class.getResourceAsStream("/org/flagos/trace/demo/" + file)) {
                Files.copy(bundled, in.resolve(file));
            }
        }
        assertEquals(0, cli.run("replay", in.resolve("h200-app.fltrbuf").toString(), "--device-properties", "h200",
                "-o", dir.resolve("t.pftrace").toString()), cli.stderr());
        Pattern pftrace = Pattern.compile("\\((\\d+) slices: (\\d+) records and ops, 1 capture span;");
        long slices = printed(pftrace, 1);
        long recordsAndOps = printed(pftrace, 2);
        long flowEnds = withFlows - recordsAndOps;
        String readme = Files.readString(README).replaceAll("\\s+", " ");
        String says = "demo's capture prints " + events + " trace events as JSON (" + recordsAndOps + " records and ops, " + flowEnds
                + " flow ends, " + labels + " labels and markers) and " + slices + " slices as `.pftrace` (" + recordsAndOps + " and the span)";
        assertTrue(readme.contains(says), "README says: " + says);
        String formats = Files.readString(Path.of("docs/formats.md")).replaceAll("\\s+", " ");
        String formatsSays = "`wrote T.pftrace (" + slices + " slices: " + recordsAndOps + " records and ops, 1 capture span; ...)` for the"
                + " demo's capture, which as JSON is `" + events + " trace events: " + withFlows + " records, ops and flow ends, " + labels
                + " row labels and markers`. The " + recordsAndOps + " records and ops";
        assertTrue(formats.contains(formatsSays), "docs/formats.md says: " + formatsSays);
    }

    @Test
    void everyOptionInTheReadmesCommandLinesExistsOnItsCommand() throws IOException {
        String readme = Files.readString(README).replace("\\\n", " ");
        PrintStream sink = new PrintStream(OutputStream.nullOutputStream());
        Map<String, CommandLine> commands = new FlagtraceCli(sink, sink).commandLine().getSubcommands();
        Matcher line = Pattern.compile("\\./flagtrace ([a-z]\\w*)([^`\\n#]*)").matcher(readme);
        Pattern option = Pattern.compile("(?<![\\w-])(--?[a-zA-Z][\\w-]*)");
        int checked = 0;
        while (line.find()) {
            CommandLine command = commands.get(line.group(1));
            assertNotNull(command, "README runs ./flagtrace " + line.group(1) + ", which is no command");
            String own = line.group(2);
            int end = own.indexOf(" -- ");
            Matcher o = option.matcher(end < 0 ? own : own.substring(0, end)); // after "--": the program's own options
            while (o.find()) {
                assertNotNull(command.getCommandSpec().findOption(o.group(1)),
                        "README: ./flagtrace " + line.group(1) + " has no option " + o.group(1) + " (" + line.group() + ")");
                checked++;
            }
        }
        assertTrue(checked > 30, "the README's command lines were read: " + checked + " options");
    }
}
