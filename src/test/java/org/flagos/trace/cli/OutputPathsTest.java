package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.capture.TraceFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link OutputPaths}, the one rule of a command's outputs, called directly: an output that is an input (by another
 * spelling or a link too), two outputs on one file (a character device excepted), every sidecar place of a capture
 * ({@code .fltrbuf} and {@code .fltrbuf.gz}, present or not), the inside of an input directory and of a journal, the
 * directory an output would go to, and the names that pick a trace format or a page. Each refusal is one line that
 * names the option and the path.
 */
class OutputPathsTest {
    @TempDir
    Path dir;

    private static Map<String, Path> map(Object... kv) {
        Map<String, Path> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], (Path) kv[i + 1]);
        }
        return m;
    }

    private static String refused(Map<String, Path> in, Map<String, Path> out) {
        String m = assertThrows(UsageException.class, () -> OutputPaths.refuse(in, out)).getMessage();
        assertTrue(!m.contains("\n"), "one line: " + m);
        return m;
    }

    @Test
    void anOutputThatIsAnInputIsRefusedByAnySpellingOrLink() throws Exception {
        Path trace = Files.writeString(dir.resolve("t.json"), "{}");
        assertEquals("-o " + trace + " is the trace being read: refusing to overwrite an input; choose another output path",
                refused(map("trace", trace), map("-o", trace)));
        Path spelled = dir.resolve("sub/../t.json");
        Files.createDirectory(dir.resolve("sub"));
        assertTrue(refused(map("trace", trace), map("-o", spelled)).startsWith("-o " + spelled + " is the trace being read"));
        Path link = Files.createSymbolicLink(dir.resolve("link.json"), trace);
        assertTrue(refused(map("trace", trace), map("--json", link)).startsWith("--json " + link + " is the trace being read"));
        Path missing = dir.resolve("missing.json");
        assertTrue(refused(map("A", missing), map("-o", missing)).contains("is the A being read"),
                "a missing input is still not overwritten by the same path");
        assertDoesNotThrow(() -> OutputPaths.refuse(map("trace", trace, "other", null), map("-o", dir.resolve("out.json"), "--json", null)),
                "null values are left out");
    }

    @Test
    void twoOutputsOnOneFileAreRefusedButACharacterDeviceTakesBoth() throws Exception {
        Path out = dir.resolve("out.json");
        assertEquals("-o and --json name the same file " + out + ": give each output its own path",
                refused(map(), map("-o", out, "--json", dir.resolve("./out.json"))));
        assertTrue(refused(map(), map("-o", dir.resolve("a.json"), "--json", dir.resolve("b.json"), "--html", out, "--x", out))
                .startsWith("--html and --x name the same file"), "the third and fourth of four outputs");
        Path devNull = Path.of("/dev/null");
        if (Files.exists(devNull)) {
            assertDoesNotThrow(() -> OutputPaths.refuse(map(), map("-o", devNull, "--json", devNull)));
        }
    }

    @Test
    void everySidecarPlaceOfACaptureIsRefusedPresentOrNot() throws Exception {
        Path capture = Files.writeString(dir.resolve("rank0.fltrbuf"), "x");
        for (String sidecar : List.of("rank0.process.json", "rank0.clock.json", "rank0.devices.json", "rank0.names.tsv",
                "rank0.ops.jsonl", "rank0.ops.jsonl.gz")) {
            Path out = dir.resolve(sidecar);
            String m = refused(map("capture", capture), map("-o", out));
            assertTrue(m.startsWith("-o " + out + " is where a replay of " + capture + " reads its "), m);
            assertTrue(m.endsWith(": refusing to write there; choose another output path"), m);
            assertTrue(Files.notExists(out), "absent, refused all the same");
        }
        Path gz = Files.writeString(dir.resolve("big.fltrbuf.gz"), "x");
        assertTrue(refused(map("capture", gz), map("-o", dir.resolve("big.process.json"))).contains("reads its rank and clock anchors"));
        assertDoesNotThrow(() -> OutputPaths.refuse(map("capture", capture), map("-o", dir.resolve("rank0.json"),
                "--json", dir.resolve("rank1.process.json"))), "the trace itself and another capture's sidecar are free");
        Path trace = Files.writeString(dir.resolve("rank0.json"), "{}");
        assertDoesNotThrow(() -> OutputPaths.refuse(map("trace", trace), map("-o", dir.resolve("rank0.process.json"))),
                "only a capture's sidecars are guarded");
    }

    @Test
    void nothingIsWrittenInsideAnInputDirectoryOrJournal() throws Exception {
        Path ranks = Files.createDirectory(dir.resolve("ranks"));
        String m = refused(map("ranks", ranks), map("-o", ranks.resolve("merged.json")));
        assertTrue(m.startsWith("-o " + ranks.resolve("merged.json") + " is inside the directory being read (ranks) (" + ranks + "): "), m);
        assertTrue(m.endsWith("): a file written there would replace or sit among its own files; choose an output path outside " + ranks), m);
        assertTrue(!m.contains("journal"), "a plain directory is no journal: " + m);
        Path journal = Files.createDirectory(dir.resolve("j"));
        Files.writeString(journal.resolve("metadata.cq4t"), "");
        assertTrue(refused(map("journal", journal), map("-o", journal.resolve("deep/x.json"))).contains("inside the journal directory being read"));
        assertTrue(refused(map("journal", journal), map("-o", journal)).contains(" is the journal being read: refusing to overwrite an input"),
                "the directory itself");
        Path link = Files.createSymbolicLink(dir.resolve("jl"), journal);
        assertTrue(refused(map("journal", journal), map("-o", link.resolve("x.json"))).contains("inside the journal"), "through a link");
        Files.createDirectory(journal.resolve("sub"));
        assertTrue(refused(map("journal", journal), map("-o", link.resolve("sub/x.json"))).contains("inside the journal"),
                "through a link, a folder deeper");
        assertDoesNotThrow(() -> OutputPaths.refuse(map("journal", journal), map("-o", dir.resolve("j2/x.json"))),
                "a sibling whose name starts alike is outside");
        assertDoesNotThrow(() -> OutputPaths.refuse(map("journal", journal), map("-o", dir.resolve("x.json"))));
    }

    @Test
    void anOutputsDirectoryMustExistAndNotBeAFile() throws Exception {
        OutputPaths.checkWritable(map("-o", dir.resolve("fine.json"), "--json", null));
        Path missing = dir.resolve("no/such/out.json");
        String m = assertThrows(CliFailures.CommandFailedException.class, () -> OutputPaths.checkWritable(map("-o", missing))).getMessage();
        assertEquals("cannot write -o " + missing + ": the directory " + missing.getParent() + " does not exist (it is not created);"
                + " create it first, or choose an existing directory", m);
        assertTrue(Files.notExists(dir.resolve("no")), "nothing created");
        Path file = Files.writeString(dir.resolve("plain"), "x");
        assertEquals("cannot write --json " + file.resolve("a/b.json") + ": " + file + " is a file, not a directory",
                assertThrows(CliFailures.CommandFailedException.class,
                        () -> OutputPaths.checkWritable(map("--json", file.resolve("a/b.json")))).getMessage());
        assertTrue(assertThrows(CliFailures.CommandFailedException.class, () -> OutputPaths.checkWritable(map("-o", dir)))
                .getMessage().endsWith(": it is a directory; give a file name inside it"));
    }

    @Test
    void aTraceNamePicksItsFormatOrIsRefused() {
        assertEquals(TraceFormat.JSON, OutputPaths.checkTraceName("-o", Path.of("a.json")));
        assertEquals(TraceFormat.JSON, OutputPaths.checkTraceName("-o", Path.of("a.json.gz")));
        assertEquals(TraceFormat.PERFETTO, OutputPaths.checkTraceName("-o", Path.of("a.pftrace.gz")));
        assertEquals(TraceFormat.PARQUET, OutputPaths.checkTraceName("-o", Path.of("a.parquet")));
        String m = assertThrows(UsageException.class, () -> OutputPaths.checkTraceName("-o", Path.of("out/report.txt"))).getMessage();
        assertTrue(m.startsWith("-o out/report.txt: a trace file's name ends in "), m);
        for (TraceFormat f : TraceFormat.values()) {
            assertTrue(m.contains(TraceFormat.suffixWords(List.of(f)).split(" ")[0]), m);
        }
        List<TraceFormat> json = List.of(TraceFormat.JSON);
        String merged = assertThrows(UsageException.class, () -> OutputPaths.checkTraceName("-o", Path.of("m.pftrace"), json,
                "a merged trace is Chrome JSON")).getMessage();
        assertEquals("-o m.pftrace: a merged trace is Chrome JSON; name it " + TraceFormat.suffixWords(json), merged);
        assertEquals(TraceFormat.JSON, OutputPaths.checkTraceName("-o", Path.of("m.json"), json, "a merged trace is Chrome JSON"));
        if (Files.exists(Path.of("/dev/null"))) {
            assertEquals(TraceFormat.JSON, OutputPaths.checkTraceName("-o", Path.of("/dev/null")), "a device gets the first allowed format");
            assertEquals(TraceFormat.PERFETTO, OutputPaths.checkTraceName("-o", Path.of("/dev/null"), List.of(TraceFormat.PERFETTO), "x"));
        }
    }

    @Test
    void aPageIsNamedHtmlOrHtmWithSomethingBeforeIt() {
        OutputPaths.checkPageName("--html", Path.of("r.html"));
        OutputPaths.checkPageName("--html", Path.of("dir/r.htm"));
        for (String bad : List.of("r.txt", ".html", "r.html.gz", "html")) {
            assertEquals("--html " + bad + ": the report is an HTML page; name it .html",
                    assertThrows(UsageException.class, () -> OutputPaths.checkPageName("--html", Path.of(bad))).getMessage(), bad);
        }
        if (Files.exists(Path.of("/dev/null"))) {
            OutputPaths.checkPageName("--html", Path.of("/dev/null"));
        }
    }
}
