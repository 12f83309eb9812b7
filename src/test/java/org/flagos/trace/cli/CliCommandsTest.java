package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.UnmatchedArgumentException;
import org.junit.jupiter.api.Test;

/** Every command answers --help and --version, lists only what it accepts, and says how to recover from a typo. */
class CliCommandsTest {
    private static final Pattern OPTION = Pattern.compile("(?<![\\w-])(--[a-z]+(?:-[a-z]+)*|-[a-zA-Z])(?![\\w-])");

    private final CliRunner cli = new CliRunner();

    /** The commands, by name, as the CLI builds them. */
    private static Map<String, CommandLine> commands() {
        PrintStream sink = new PrintStream(java.io.OutputStream.nullOutputStream());
        return new FlagtraceCli(sink, sink).commandLine().getSubcommands();
    }

    private static Set<String> optionsIn(String text) {
        Set<String> found = new TreeSet<>();
        Matcher m = OPTION.matcher(text);
        while (m.find()) {
            found.add(m.group(1));
        }
        return found;
    }

    @Test
    void everyCommandAnswersHelpWithExit0AndListsOnlyItsOwnOptions() {
        Map<String, CommandLine> commands = commands();
        assertEquals(Set.of("demo", "replay", "record", "summary", "report", "merge", "tables", "analyze", "diff", "run", "start", "stop", "attach", "help"), commands.keySet());
        for (String name : commands.keySet()) {
            for (String help : new String[] {"--help", "-h"}) {
                assertEquals(0, cli.run(name, help), name + " " + help + ": " + cli.stderr());
                assertTrue(cli.stdout().contains("Usage: ./flagtrace " + name), cli.stdout());
                assertEquals("", cli.stderr(), name);
            }
            if (name.equals("help")) {
                continue;
            }
            cli.run(name, "--help");
            String text = cli.stdout();
            Set<String> own = new TreeSet<>();
            for (OptionSpec o : commands.get(name).getCommandSpec().options()) {
                own.addAll(java.util.List.of(o.names()));
            }
            for (String listed : optionsIn(text)) {
                assertTrue(own.contains(listed), name + " --help lists " + listed + ", which " + name + " does not take: " + own);
                // And the parser takes it: no "unknown option" for anything the help shows.
                try {
                    PrintStream sink = new PrintStream(java.io.OutputStream.nullOutputStream());
                    boolean flag = commands.get(name).getCommandSpec().findOption(listed).arity().max() == 0;
                    new FlagtraceCli(sink, sink).commandLine().parseArgs(flag ? new String[] {name, listed} : new String[] {name, listed, "x"});
                } catch (UnmatchedArgumentException e) {
                    fail(name + " lists " + listed + " but rejects it: " + e.getMessage());
                } catch (CommandLine.ParameterException e) {
                    // missing or bad values are fine here: the option itself was recognised
                }
            }
            for (String o : own) {
                assertTrue(text.contains(o), name + " --help leaves out " + o);
            }
            assertTrue(text.contains("Exit codes:") && text.contains("0   done") && text.contains("2   usage"), text);
        }
    }

    @Test
    void recordListsNoReplayOnlyOption() {
        assertEquals(0, cli.run("record", "--help"));
        for (String replayOnly : new String[] {"--names", "--metadata", "--ops", "--from", "--to", "--last"}) {
            assertFalse(optionsIn(cli.stdout()).contains(replayOnly), replayOnly + " in record --help:\n" + cli.stdout());
            assertEquals(2, cli.run("record", "--workload", "parity", "-o", "t.json", replayOnly, "x"), replayOnly);
            assertTrue(cli.stderr().contains("unknown option '" + replayOnly + "'"), cli.stderr());
        }
    }

    @Test
    void theTopLevelHelpListsEveryCommandAndTheExitCodes() {
        assertEquals(0, cli.run("--help"));
        for (String command : new String[] {"demo", "replay", "record", "summary", "report"}) {
            assertTrue(cli.stdout().contains("\n  " + command + " "), command + " in\n" + cli.stdout());
        }
        assertTrue(cli.stdout().contains("3   the input was cut short"), cli.stdout());
        assertEquals(0, cli.run("help", "replay"));
        assertTrue(cli.stdout().contains("Usage: ./flagtrace replay"), cli.stdout());
    }

    @Test
    void versionIsThePomVersionOnEveryCommand() throws IOException {
        String pom = Files.readString(Path.of("pom.xml"));
        Matcher m = Pattern.compile("<artifactId>flagtrace</artifactId>\\s*<version>([^<]+)</version>").matcher(pom);
        assertTrue(m.find(), "the pom names its version");
        String expected = "flagtrace " + m.group(1);
        for (String[] args : new String[][] {{"--version"}, {"-V"}, {"replay", "--version"}, {"summary", "-V"}}) {
            assertEquals(0, cli.run(args), String.join(" ", args));
            assertEquals(expected, cli.stdout().lines().findFirst().orElse(""), String.join(" ", args));
        }
    }

    @Test
    void anUnknownOptionExits2WithOneLinePointingToHelp() {
        for (String name : new String[] {"demo", "replay", "record", "summary", "report"}) {
            assertEquals(2, cli.run(name, "--frobnicate"), name);
            String err = cli.stderr();
            assertEquals(1, err.strip().lines().count(), "one line: " + err);
            assertTrue(err.contains("unknown option '--frobnicate'") && err.contains("see './flagtrace " + name + " --help'"), err);
            assertEquals("", cli.stdout(), name);
        }
        assertEquals(2, cli.run("replay", "c.fltrbuf", "-o", "t.json", "--form", "+1s"));
        assertTrue(cli.stderr().contains("did you mean --from?"), cli.stderr());
        assertEquals(2, cli.run("frobnicate"));
        assertTrue(cli.stderr().contains("unknown command 'frobnicate'") && cli.stderr().contains("replay"), cli.stderr());
        assertEquals(1, cli.stderr().strip().lines().count(), cli.stderr());
    }

    @Test
    void noCommandShowsTheCommandsOnStderrWithExit2() {
        assertEquals(2, cli.run());
        assertTrue(cli.stderr().contains("'./flagtrace demo'") && cli.stderr().contains("Commands:"), cli.stderr());
        assertEquals("", cli.stdout());
    }

    @Test
    void aMissingOpsFileSaysHowToMakeOne() {
        assertEquals(1, cli.run("replay", org.flagos.trace.testing.Captures.capture("h200-app-tiny2k").toString(),
                "--ops", "nope.ops.jsonl", "-o", "never.json"));
        String err = cli.stderr();
        assertEquals(1, err.strip().lines().count(), err);
        assertTrue(err.contains("nope.ops.jsonl: no such file") && err.contains("--dump-buffers")
                && err.contains("leave --ops out"), err);
        assertFalse(Files.exists(Path.of("never.json")));
    }
}
