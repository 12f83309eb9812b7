package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A journal through the command line, refused or warned about as issue 14 asks: windows that end
 * before they start or lie outside the journal (exit 2, with the journal's span), an output inside
 * the journal (exit 2, the journal untouched), a plain directory, a damaged journal (exit 3, one
 * line in words, the trace written).
 */
class JournalCliRefusalTest {
    private static final String CAPTURE = "h200-app-tiny2k";
    private final CliRunner cli = new CliRunner();

    @TempDir
    Path tmp;

    private Path journal;

    @BeforeEach
    void journal() {
        journal = tmp.resolve("journal");
        assertEquals(0, cli.run("replay", Captures.capture(CAPTURE).toString(), "--ops", Captures.ops(CAPTURE).toString(),
                "--journal", journal.toString(), "-o", tmp.resolve("direct.json").toString()), cli.stderr());
    }

    @Test
    void aWindowThatEndsBeforeItStartsIsAUsageError() {
        Path out = tmp.resolve("w.json");
        assertEquals(2, cli.run("replay", journal.toString(), "--from", "+1s", "--to", "+0s", "-o", out.toString()), cli.stdout());
        assertTrue(cli.stderr().contains("--from +1s is after --to +0s"), cli.stderr());
        assertEquals(1, cli.stderr().lines().count(), cli.stderr());
        assertFalse(Files.exists(out));
    }

    @Test
    void aWindowOutsideTheJournalSaysTheJournalsSpan() {
        Path out = tmp.resolve("w.json");
        assertEquals(2, cli.run("replay", journal.toString(), "--from", "+1h", "-o", out.toString()), cli.stdout());
        assertTrue(cli.stderr().contains("after the journal's end") && cli.stderr().contains("the journal spans"), cli.stderr());
        assertFalse(Files.exists(out));

        java.util.regex.Matcher span = java.util.regex.Pattern.compile("spans (\\d+) \\.\\. (\\d+) ns").matcher(cli.stderr());
        assertTrue(span.find(), cli.stderr());
        long start = Long.parseLong(span.group(1));
        assertTrue(Long.parseLong(span.group(2)) > start + 200_000_000L, "the capture spans more than 200 ms: " + cli.stderr());

        assertEquals(2, cli.run("replay", journal.toString(), "--to", "1000", "-o", out.toString()), cli.stdout());
        assertTrue(cli.stderr().contains("before the journal's start") && cli.stderr().contains("the journal spans"), cli.stderr());
        assertFalse(Files.exists(out));

        // one relative, one absolute: only the journal's start tells that this window ends before it starts
        assertEquals(2, cli.run("replay", journal.toString(), "--from", "+200ms", "--to", String.valueOf(start + 100_000_000L),
                "-o", out.toString()), cli.stdout());
        assertTrue(cli.stderr().contains("ends before it starts") && cli.stderr().contains("the journal spans"), cli.stderr());
        assertFalse(Files.exists(out));
    }

    @Test
    void anOutputInsideTheJournalIsRefusedAndTheJournalIsUntouched() throws IOException {
        Map<Path, byte[]> before = contents(journal);
        for (Path inside : List.of(journal.resolve("metadata.cq4t"), cycle(journal), journal.resolve("t.json"))) {
            assertEquals(2, cli.run("replay", journal.toString(), "-o", inside.toString()), inside + ": " + cli.stdout());
            assertTrue(cli.stderr().contains("inside the journal directory"), cli.stderr());
            assertEquals(2, cli.run("replay", journal.toString(), "-o", tmp.resolve("ok.json").toString(),
                    "--summary", inside.toString()), inside + ": " + cli.stdout());
        }
        Map<Path, byte[]> after = contents(journal);
        assertEquals(before.keySet(), after.keySet(), "no file added to or taken from the journal");
        for (Path file : before.keySet()) {
            assertArrayEquals(before.get(file), after.get(file), file + " unchanged");
        }
        assertEquals(0, cli.run("replay", journal.toString(), "-o", tmp.resolve("ok.json").toString()), cli.stderr());

        Path fresh = tmp.resolve("fresh");
        assertEquals(2, cli.run("replay", Captures.capture(CAPTURE).toString(), "--journal", fresh.toString(),
                "-o", fresh.resolve("t.json").toString()));
        assertTrue(cli.stderr().contains("inside the journal directory"), cli.stderr());
        assertFalse(Files.exists(fresh), "refused before anything was written");
    }

    @Test
    void aZeroRetentionAgeSaysWhatWouldWork() {
        Path fresh = tmp.resolve("fresh");
        assertEquals(2, cli.run("replay", Captures.capture(CAPTURE).toString(), "--journal", fresh.toString(), "--retain-age", "0s",
                "-o", tmp.resolve("r.json").toString()));
        assertTrue(cli.stderr().contains("--retain-age wants a positive duration such as 30s"), cli.stderr());
        assertFalse(cli.stderr().contains("PT0S"), "no Java duration syntax: " + cli.stderr());
        assertFalse(Files.exists(fresh));
    }

    @Test
    void aPlainDirectorySaysItIsNoJournalAndWhatIsAccepted() throws IOException {
        Path plain = Files.createDirectories(tmp.resolve("plain"));
        assertEquals(1, cli.run("replay", plain.toString(), "-o", tmp.resolve("p.json").toString()));
        String err = cli.stderr();
        assertTrue(err.contains(plain + " is a directory that is not a flagtrace journal"), err);
        assertTrue(err.contains(".fltrbuf") && err.contains("--journal"), "says what is accepted: " + err);
        assertNoJava(err);
    }

    @Test
    void aJournalWithADamagedMetadataFileIsDescribedInWords() throws IOException {
        Files.writeString(journal.resolve("metadata.cq4t"), "not a queue table\n");
        assertEquals(1, cli.run("replay", journal.toString(), "-o", tmp.resolve("m.json").toString()));
        assertTrue(cli.stderr().contains(journal.toString()), cli.stderr());
        assertNoJava(cli.stderr());
        assertEquals(1, cli.stderr().lines().count(), cli.stderr());
    }

    @Test
    void garbageAfterTheLastDocumentExitsThreeWithTheWholeTrace() throws IOException {
        Path file = cycle(journal);
        byte[] bytes = Files.readAllBytes(file);
        int end = bytes.length;
        while (end > 0 && bytes[end - 1] == 0) {
            end--;
        }
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek((end + 3L) & ~3L);
            f.write(new byte[] {0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a});
        }
        Path out = tmp.resolve("g.json");
        assertEquals(3, cli.run("replay", journal.toString(), "-o", out.toString()), cli.stderr());
        assertTrue(cli.stderr().startsWith("flagtrace: warning: " + journal), cli.stderr());
        assertNoJava(cli.stderr());
        assertTrue(cli.stdout().contains("wrote " + out), cli.stdout());
        assertEquals(events(tmp.resolve("direct.json")), events(out), "every event before the garbage: all of them");
    }

    private static List<String> events(Path trace) throws IOException {
        List<String> events = new java.util.ArrayList<>();
        TraceJson.MAPPER.readTree(trace.toFile()).get("traceEvents").forEach(e -> events.add(e.toString()));
        return events;
    }

    static void assertNoJava(String text) {
        for (String java : List.of("java.", "Exception", "InternalError", "openhft")) {
            assertFalse(text.contains(java), "no Java class name: " + text);
        }
    }

    private static Path cycle(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".cq4")).findFirst().orElseThrow();
        }
    }

    private static Map<Path, byte[]> contents(Path dir) throws IOException {
        Map<Path, byte[]> map = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.toList()) {
                map.put(p.getFileName(), Files.readAllBytes(p));
            }
        }
        return map;
    }
}
