package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.util.SplittableRandom;
import org.flagos.trace.ingest.CaptureFormatException;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@link CliFailures}: each kind of failure is one line on stderr with its exit code (2 for usage, 1 otherwise), a
 * message's later lines dropped and terminal escapes from file names made safe, an unexpected one called an internal
 * error without a class name; picocli's complaints about the real command tree said in this CLI's words, with the
 * nearest options and commands (edit distance, a swap counting one) suggested.
 */
class CliFailuresTest {
    private static final String ESC = "\u001b]0;owned\u0007\u001b[2J";

    private static String[] report(Throwable e, String command) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = CliFailures.report(e, command, new PrintStream(err, true, StandardCharsets.UTF_8));
        String text = err.toString(StandardCharsets.UTF_8);
        assertTrue(text.endsWith(System.lineSeparator()), text);
        String line = text.substring(0, text.length() - System.lineSeparator().length());
        assertFalse(line.contains("\n") || line.contains("\r"), "one line: " + text);
        assertFalse(line.contains("\u001b") || line.contains("\u0007"), "no raw escape: " + line);
        return new String[] {String.valueOf(code), line};
    }

    @Test
    void eachFailureIsOneLineWithItsExitCode() {
        String[] usage = report(new UsageException("--limit -3: not a count " + ESC), "flagtrace summary");
        assertEquals("2", usage[0]);
        assertTrue(usage[1].startsWith("flagtrace summary: --limit -3: not a count "), usage[1]);
        assertTrue(usage[1].endsWith("; see 'flagtrace summary --help'"), usage[1]);
        String[] format = report(new CaptureFormatException("x.fltrbuf: cut inside record 7\nsecond line"), "flagtrace");
        assertEquals("1", format[0]);
        assertEquals("flagtrace: error: x.fltrbuf: cut inside record 7", format[1]);
        assertEquals("flagtrace: error: done badly", report(new CliFailures.CommandFailedException("  done badly  "), "x")[1]);
        String[] io = report(new NoSuchFileException("/no/such/dir/out.json"), "flagtrace");
        assertEquals("1", io[0]);
        assertEquals("flagtrace: error: /no/such/dir/out.json: no such file or directory", io[1], "the file named, not only the words");
        assertEquals("flagtrace: error: /a: permission denied", report(new java.nio.file.AccessDeniedException("/a"), "flagtrace")[1]);
        String[] unchecked = report(new UncheckedIOException(new NoSuchFileException("/a/b")), "flagtrace");
        assertEquals(io[1].replace("/no/such/dir/out.json", "/a/b"), unchecked[1], "the cause, said as the checked one");
        String[] oom = report(new OutOfMemoryError("Java heap space"), "flagtrace");
        assertTrue(oom[1].startsWith("flagtrace: error: out of memory (Java heap space); give the JVM more heap"), oom[1]);
        assertEquals("flagtrace: error: stack overflow while processing the input (a pathological name or nesting?)",
                report(new StackOverflowError(), "flagtrace")[1]);
        String[] internal = report(new IllegalStateException("slot " + ESC + " gone\nat Foo.bar"), "flagtrace");
        assertEquals("1", internal[0]);
        assertTrue(internal[1].startsWith("flagtrace: internal error: slot ") && internal[1].endsWith(
                " gone (please report it with the command line and the input)"), internal[1]);
        assertFalse(internal[1].contains("IllegalStateException"));
        assertEquals("flagtrace: internal error: an unexpected failure with no message (please report it with the command line and the input)",
                report(new NullPointerException(), "flagtrace")[1]);
    }

    @Test
    void anInterruptIsSaidAndTheFlagKept() {
        try {
            assertEquals("flagtrace: interrupted", report(new InterruptedException(), "flagtrace")[1]);
            assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is passed on");
        } finally {
            Thread.interrupted();
        }
    }

    private static String complaint(String... args) {
        CommandLine line = new FlagtraceCli(new PrintStream(new ByteArrayOutputStream()), new PrintStream(new ByteArrayOutputStream()))
                .commandLine();
        CommandLine.ParameterException e = assertThrows(CommandLine.ParameterException.class, () -> line.parseArgs(args));
        String said = CliFailures.describe(e);
        assertFalse(said.contains("\n"), said);
        return said;
    }

    @Test
    void picocliComplaintsAreSaidInThisCliWordsWithTheNearestNames() {
        String command = complaint("sumary", "t.json");
        assertTrue(command.startsWith("unknown command 'sumary' (did you mean summary?); commands: demo, replay, record, summary,"), command);
        assertEquals("unknown option '--jsn' (did you mean --json?)", complaint("diff", "--jsn", "x.json", "a.json", "b.json"));
        assertEquals("unknown option '--form'", complaint("diff", "--form", "a.json", "b.json"), "no diff option is near");
        assertEquals("missing B", complaint("diff", "a.json"));
        assertEquals("missing A", complaint("diff"), "picocli names the first missing parameter");
        assertEquals("unexpected argument 'c.json' (did you mean --json?)", complaint("diff", "a.json", "b.json", "c.json"),
                "a third file: perhaps the --json output without its option");
        assertEquals("unexpected argument 'third'", complaint("diff", "a.json", "b.json", "third"));
        assertEquals("unknown option '--nope'", complaint("diff", "--nope"), "the unknown option before the missing parameters");
        assertEquals("unknown command 'xyzzy'; commands: " + String.join(", ",
                new FlagtraceCli(System.out, System.err).commandLine().getSubcommands().keySet()), complaint("xyzzy"));
    }

    @Test
    void theDistanceCountsASwapOfNeighboursAsOneEdit() {
        assertEquals(1, CliFailures.distance("--form", "--from"));
        assertEquals(3, CliFailures.distance("kitten", "sitting"));
        assertEquals(0, CliFailures.distance("", ""));
        assertEquals(5, CliFailures.distance("", "merge"));
        assertEquals(2, CliFailures.distance("sumary", "summary") + 1);
        assertEquals(3, CliFailures.distance("ca", "abc"), "restricted: no edit of a swapped pair");
        assertEquals(2, CliFailures.distance("abcd", "badc"));
        SplittableRandom random = new SplittableRandom(30);
        for (int i = 0; i < 2_000; i++) {
            String a = word(random);
            String b = word(random);
            int d = CliFailures.distance(a, b);
            assertEquals(d, CliFailures.distance(b, a), a + " / " + b);
            assertTrue(d >= Math.abs(a.length() - b.length()) && d <= Math.max(a.length(), b.length()), a + " / " + b + ": " + d);
            assertEquals(0, CliFailures.distance(a, a));
            if (a.length() >= 2) {
                int k = random.nextInt(a.length() - 1);
                String swapped = a.substring(0, k) + a.charAt(k + 1) + a.charAt(k) + a.substring(k + 2);
                assertTrue(CliFailures.distance(a, swapped) <= 1, a + " / " + swapped);
            }
        }
    }

    private static String word(SplittableRandom random) {
        StringBuilder b = new StringBuilder();
        int n = random.nextInt(8);
        for (int i = 0; i < n; i++) {
            b.append((char) ('a' + random.nextInt(4)));
        }
        return b.toString();
    }

    @Test
    void oneLineIsTheFirstLineStripped() {
        assertEquals("", CliFailures.oneLine(null));
        assertEquals("a b", CliFailures.oneLine("  a b \nc"));
        assertEquals("x", CliFailures.oneLine("x"));
        assertTrue(!CliFailures.safeLine("name " + ESC).contains("\u001b"));
        IOException plain = new IOException("disk gone");
        assertEquals("flagtrace: error: disk gone", report(plain, "flagtrace")[1]);
    }
}
