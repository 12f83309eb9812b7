package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code flagtrace demo}: its bundled files are the real h200-app capture; it writes the trace and summary that
 * {@code replay} of that capture with its ops, names and the H200's properties writes, says so and what to do next,
 * creates the folder it is given and leaves no copy of the bundled files behind; a file where the folder should be is
 * refused in words.
 */
class DemoCommandTest {
    @TempDir
    Path dir;

    private final CliRunner cli = new CliRunner();

    @Test
    void theBundledFilesAreTheRealH200AppCapture() throws Exception {
        for (String suffix : List.of(".fltrbuf", ".ops.jsonl", ".names.tsv")) {
            try (InputStream in = DemoCommand.class.getResourceAsStream("/org/flagos/trace/demo/h200-app" + suffix)) {
                assertArrayEquals(Files.readAllBytes(Captures.dir().resolve("h200-app" + suffix)), in.readAllBytes(), suffix);
            }
        }
    }

    /** The names in the temporary folder of the demo's copies of its bundled files. */
    private static Set<String> copies() throws Exception {
        try (Stream<Path> list = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return list.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("flagtrace-demo"))
                    .collect(java.util.stream.Collectors.toCollection(TreeSet::new));
        }
    }

    @Test
    void itWritesWhatReplayOfTheCaptureWritesIntoAFolderItCreates() throws Exception {
        Path demo = dir.resolve("a/b/demo");
        Set<String> before = copies();
        assertEquals(0, cli.run("demo", "-o", demo.toString()), cli.stderr());
        assertEquals(before, copies(), "the bundled copies removed");
        assertEquals(Set.of("trace.json", "summary.json"), Set.of(demo.toFile().list()));
        List<String> lines = cli.stdout().lines().toList();
        assertEquals("flagtrace demo: replaying a real CUPTI capture from an NVIDIA H200 (cuBLAS SGEMM + ReLU, a CUB sort, copies,"
                + " a memset)", lines.get(0));
        assertEquals("open " + demo.resolve("trace.json") + " in Perfetto's UI (ui.perfetto.dev) or chrome://tracing to see the"
                + " timeline; next: " + Launcher.name() + " report " + demo.resolve("trace.json") + " -o " + demo.resolve("report.html")
                + ", or " + Launcher.name() + " replay --help for your own captures", lines.get(lines.size() - 1));
        String demoOut = cli.stdout();

        Path trace = dir.resolve("trace.json");
        Path summary = dir.resolve("summary.json");
        assertEquals(0, cli.run("replay", Captures.capture("h200-app").toString(), "--ops", Captures.ops("h200-app").toString(),
                "--names", Captures.names("h200-app").toString(), "--device-properties", "h200", "-o", trace.toString(), "--summary",
                summary.toString()), cli.stderr());
        assertEquals(TraceJson.MAPPER.readTree(trace.toFile()), TraceJson.MAPPER.readTree(demo.resolve("trace.json").toFile()));
        assertEquals(TraceJson.MAPPER.readTree(summary.toFile()), TraceJson.MAPPER.readTree(demo.resolve("summary.json").toFile()));
        String table = cli.stdout().substring(0, cli.stdout().indexOf(System.lineSeparator() + "wrote "));
        assertTrue(demoOut.contains(table), "the replay's op table and counts, printed alike:\n" + table);

        assertEquals(0, cli.run("demo", "-o", demo.toString()), "again into the same folder: " + cli.stderr());
    }

    @Test
    void aFileWhereTheFolderShouldBeIsRefusedInWords() throws Exception {
        Path file = Files.writeString(dir.resolve("notes"), "a file");
        for (Path out : List.of(file, file.resolve("demo"))) {
            assertEquals(ExitCodes.FAILED, cli.run("demo", "-o", out.toString()), cli.stdout());
            assertEquals("flagtrace: error: demo -o " + out + ": " + file.toAbsolutePath() + " is a file, not a directory; give a"
                    + " directory for the trace and summary (it is created if missing), e.g. -o flagtrace-demo", cli.stderr().strip());
            assertEquals("", cli.stdout());
        }
        assertEquals(List.of("notes"), List.of(dir.toFile().list()));
        assertFalse(Files.isDirectory(file));
    }
}
