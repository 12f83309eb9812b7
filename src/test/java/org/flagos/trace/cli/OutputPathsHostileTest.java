package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.flagos.trace.capture.AtomicOutput;
import org.flagos.trace.capture.TraceFormat;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 30, item 6: every command that writes a file refuses what {@code replay} refuses, by one rule
 * ({@link OutputPaths#refuse}): a capture's sidecar, an input journal directory, a name whose ending
 * picks another format; a long (valid) output name works; what a killed merge leaves is removed by the
 * next one.
 */
class OutputPathsHostileTest {
    @TempDir
    Path dir;

    private final CliRunner cli = new CliRunner();

    private Path capture() throws IOException {
        Path capture = dir.resolve("run.fltrbuf");
        Files.copy(Captures.capture("h200-app-tiny2k"), capture);
        return capture;
    }

    private List<String> names() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void mergeRefusesToWriteOverOrBesideACapturesSidecars() throws Exception {
        Path capture = capture();
        Path process = dir.resolve("run.process.json");
        Files.writeString(process, "{\"keep\":1}");
        for (String sidecar : List.of("run.process.json", "run.devices.json", "run.clock.json")) {
            assertEquals(ExitCodes.USAGE, cli.run("merge", capture.toString(), "--assume-aligned", "-o", dir.resolve(sidecar).toString()),
                    sidecar + ": " + cli.stderr());
            assertTrue(cli.stderr().contains("reads its"), cli.stderr());
        }
        assertEquals("{\"keep\":1}", Files.readString(process), "the sidecar is untouched");
        assertFalse(Files.exists(dir.resolve("run.clock.json")), "no clock planted");
        // The same rule for every command: summary's JSON may not land on a sidecar either.
        assertEquals(ExitCodes.USAGE, cli.run("summary", capture.toString(), "--json", dir.resolve("run.devices.json").toString()),
                cli.stderr());
        assertFalse(Files.exists(dir.resolve("run.devices.json")));
    }

    @Test
    void everyCommandRefusesAnOutputInsideAnInputJournalDirectory() throws Exception {
        Path journal = Files.createDirectories(dir.resolve("journal"));
        Files.writeString(journal.resolve("trace.json"), "[]");
        assertEquals(ExitCodes.USAGE, cli.run("merge", journal.toString(), "--assume-aligned", "-o", journal.resolve("m.json").toString()),
                cli.stderr());
        assertTrue(cli.stderr().contains("inside"), cli.stderr());
        assertEquals(ExitCodes.USAGE, cli.run("tables", journal.toString(), "-o", journal.resolve("t.parquet").toString()), cli.stderr());
        assertEquals(ExitCodes.USAGE, cli.run("analyze", journal.toString(), "-o", journal.resolve("out").toString()), cli.stderr());
        assertEquals(List.of("trace.json"), Files.list(journal).map(p -> p.getFileName().toString()).toList());
    }

    @Test
    void reportRefusesANameThatIsNotAPage() throws Exception {
        Path trace = dir.resolve("t.json");
        Files.writeString(trace, "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"cat\":\"cpu_op\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2}]}");
        Files.createDirectories(dir.resolve("out"));
        assertEquals(ExitCodes.USAGE, cli.run("report", trace.toString(), "-o", dir.resolve("out/report.txt").toString()), cli.stderr());
        assertTrue(cli.stderr().contains(".html"), cli.stderr());
        assertFalse(Files.exists(dir.resolve("out/report.txt")));
        assertEquals(0, cli.run("report", trace.toString(), "-o", dir.resolve("out/report.html").toString()), cli.stderr());
    }

    @Test
    void oneSuffixTableNamesEachFormat() {
        assertEquals(TraceFormat.PARQUET, TraceFormat.forPath(Path.of("a.parquet")).orElseThrow());
        assertEquals(TraceFormat.PERFETTO, TraceFormat.forPath(Path.of("a.pftrace.gz")).orElseThrow());
        assertEquals(TraceFormat.JSON, TraceFormat.forPath(Path.of("a.json.gz")).orElseThrow());
        assertTrue(TraceFormat.forPath(Path.of("a.txt")).isEmpty());
        assertTrue(TraceFormat.forPath(Path.of(".json")).isEmpty(), "a suffix alone is no name");
    }

    @Test
    void anOutputNameOf255BytesIsWritten() throws Exception {
        for (int length : List.of(226, 240, 255)) {
            String name = "x".repeat(length - ".json".length()) + ".json";
            assertEquals(length, name.getBytes(StandardCharsets.UTF_8).length);
            Path target = dir.resolve(name);
            try (AtomicOutput o = new AtomicOutput(target)) {
                o.stream().write("[]".getBytes(StandardCharsets.UTF_8));
                o.commit();
            }
            assertEquals("[]", Files.readString(target), "length " + length);
            Files.delete(target);
        }
        String wide = "é".repeat(125) + ".json"; // 255 bytes of UTF-8
        assertEquals(255, wide.getBytes(StandardCharsets.UTF_8).length);
        try (AtomicOutput o = new AtomicOutput(dir.resolve(wide))) {
            o.commit();
        }
        assertTrue(Files.exists(dir.resolve(wide)));
    }

    @Test
    void whatAKilledMergeLeftIsRemovedByTheNextMerge() throws Exception {
        Path capture = capture();
        long gone = 4_999_999; // above any pid_max: no such process runs
        List<String> leftovers = List.of(".flagtrace-merge." + gone + "-17.json", "..flagtrace-merge." + gone + "-17.json." + gone + "-3.partial");
        for (String l : leftovers) {
            Files.writeString(dir.resolve(l), "half");
        }
        Files.writeString(dir.resolve(".flagtrace-merge.1-17.json"), "pid 1 runs: kept");
        assertEquals(0, cli.run("merge", capture.toString(), "--assume-aligned", "-o", dir.resolve("m.json").toString()), cli.stderr());
        List<String> after = names();
        for (String l : leftovers) {
            assertFalse(after.contains(l), l + " stays: " + after);
        }
        assertTrue(after.contains(".flagtrace-merge.1-17.json"), "a live process's temporary is never touched: " + after);
        assertEquals(List.of(".flagtrace-merge.1-17.json", "m.json", "run.fltrbuf"), after, "the merge's own temporaries are gone");
    }
}
