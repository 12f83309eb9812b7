package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rough edges that the CLI answers itself: counts per format, the bundled device names, the launcher's name in hints. */
class RoughEdgesTest {
    @TempDir
    Path dir;

    private final CliRunner cli = new CliRunner();

    private Matcher printed(String regex) {
        Matcher m = Pattern.compile(regex, Pattern.MULTILINE).matcher(cli.stdout());
        assertTrue(m.find(), regex + " in " + cli.stdout());
        return m;
    }

    /** Issue: "358 trace events" as JSON, "281 trace events" as .pftrace. Each count now says what it counts. */
    @Test
    void jsonAndPftraceCountTheSameRecordsAndOps() throws Exception {
        String capture = Captures.capture("h200-app").toString();
        String ops = Captures.ops("h200-app").toString();
        Path json = dir.resolve("t.json");
        assertEquals(0, cli.run("replay", capture, "--ops", ops, "-o", json.toString()), cli.stderr());
        Matcher j = printed("^wrote \\S+ \\((\\d+) trace events: (\\d+) records, ops and flow ends, (\\d+) row labels and markers\\)");
        long flowEnds = 0;
        for (JsonNode e : TraceJson.MAPPER.readTree(json.toFile()).get("traceEvents")) {
            String ph = e.path("ph").asText();
            flowEnds += ph.equals("s") || ph.equals("f") ? 1 : 0;
        }
        long recordsAndOps = Long.parseLong(j.group(2)) - flowEnds;

        Path pf = dir.resolve("t.pftrace");
        assertEquals(0, cli.run("replay", capture, "--ops", ops, "-o", pf.toString()), cli.stderr());
        Matcher p = printed("^wrote \\S+ \\((\\d+) slices: (\\d+) records and ops, (\\d+) capture span; arrows and row names"
                + " are not slices in a \\.pftrace\\)");
        assertEquals(recordsAndOps, Long.parseLong(p.group(2)), "the same records and ops in both formats");
        assertEquals(Long.parseLong(p.group(1)), Long.parseLong(p.group(2)) + Long.parseLong(p.group(3)));
        assertEquals(1, Long.parseLong(p.group(3)));
        assertTrue(flowEnds > 0 && Long.parseLong(j.group(1)) > Long.parseLong(p.group(1)), "JSON counts arrows and labels too");
    }

    @Test
    void replayHelpSaysPftrace() {
        assertEquals(0, cli.run("replay", "--help"));
        assertTrue(cli.stdout().contains(".pftrace"), cli.stdout());
    }

    /**
     * Issue: {@code --device-properties h100} said "h100: no such file" and no more; later issue: it exited 1
     * where the help says a bad value is a usage error (2).
     */
    @Test
    void anUnknownDeviceNameListsTheBundledOnesAndWhatElseWorks() {
        Path trace = dir.resolve("t.json");
        assertEquals(ExitCodes.USAGE, cli.run("replay", Captures.capture("h200-app").toString(), "--device-properties", "h100",
                "-o", trace.toString()));
        String err = cli.stderr().strip();
        assertEquals(1, err.lines().count(), err);
        assertTrue(err.contains("--device-properties h100: no such file"), err);
        assertTrue(err.contains("bundled ones are h200") && err.contains("torch trace") && err.contains("same machine"), err);
        assertFalse(Files.exists(trace));
    }

    /** Issue: {@code summary CAPTURE.fltrbuf} said "not valid JSON (Unrecognized token 'FLTRBUF1...')". */
    @Test
    void aCaptureGivenToSummaryOrReportSaysToReplayIt() throws Exception {
        Path capture = Captures.capture("h200-app");
        Path renamed = Files.copy(capture, dir.resolve("capture.json")); // known by its first bytes, not its name
        for (Path c : new Path[] {capture, renamed}) {
            assertEquals(ExitCodes.FAILED, cli.run("summary", c.toString()));
            String err = cli.stderr().strip();
            assertEquals(1, err.lines().count(), err);
            assertTrue(err.contains(c + " is a capture, not a trace") && err.contains("./flagtrace replay " + c + " -o TRACE.json"), err);
            assertFalse(err.contains("JSON ("), err);
            assertEquals(ExitCodes.FAILED, cli.run("report", c.toString(), "-o", dir.resolve("r.html").toString()));
            assertTrue(cli.stderr().contains("replay it first"), cli.stderr());
            assertFalse(Files.exists(dir.resolve("r.html")));
        }
    }

    /**
     * Issue: with no GPU, record said "no jnicudart in java.library.path" (JavaCPP's bridge) and not the
     * library that was missing, which the linker's line in the cause names.
     */
    @Test
    void withoutAGpuRecordNamesTheLibraryThatFailed() {
        int code = cli.run("record", "--workload", "kinds", "-o", dir.resolve("t.json").toString());
        org.junit.jupiter.api.Assumptions.assumeTrue(code != 0, "a GPU is here: the workload ran");
        String err = cli.stderr().strip();
        assertEquals(1, err.lines().count(), err);
        assertFalse(err.contains("jnicudart"), err);
        assertTrue(Pattern.compile("\\blib[\\w+-]+\\.so[\\w.]*: cannot open shared object file").matcher(err).find(), err);
    }

    @Test
    void hintsNameTheLauncher() {
        assertEquals("./flagtrace", Launcher.of(null));
        assertEquals("/opt/flagtrace/flagtrace", Launcher.of("/opt/flagtrace/flagtrace"));
        assertEquals("flagtrace", Launcher.of("flagtrace"));
        assertEquals("./flagtrace", Launcher.of("my dir/flagtrace"), "not pasteable as is");
        assertEquals("./flagtrace", Launcher.of("50%/flagtrace"), "a % would be read as a format by picocli's help");

        assertEquals(0, cli.run("demo", "-o", dir.resolve("demo").toString()), cli.stderr());
        assertTrue(cli.stdout().contains("next: ./flagtrace report "), cli.stdout());
        String before = System.getProperty(Launcher.PROPERTY);
        System.setProperty(Launcher.PROPERTY, "/opt/ft/flagtrace");
        try {
            assertEquals(0, cli.run("--help"));
            assertTrue(cli.stdout().startsWith("Usage: /opt/ft/flagtrace [-hV] COMMAND"), cli.stdout());
            assertTrue(cli.stdout().contains("Run '/opt/ft/flagtrace COMMAND --help'"), cli.stdout());
            assertEquals(2, cli.run("replay", "--frobnicate"));
            assertTrue(cli.stderr().contains("see '/opt/ft/flagtrace replay --help'"), cli.stderr());
        } finally {
            if (before == null) {
                System.clearProperty(Launcher.PROPERTY);
            } else {
                System.setProperty(Launcher.PROPERTY, before);
            }
        }
    }
}
