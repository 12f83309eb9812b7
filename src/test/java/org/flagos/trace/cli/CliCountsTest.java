package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the CLI says it wrote is what the file holds, counted in the file (issue: "wrote 344 events" for 358). */
class CliCountsTest {
    private static final Pattern WROTE = Pattern.compile(
            "^wrote (\\S+) \\((\\d+) trace events: (\\d+) records, ops and flow ends, (\\d+) row labels and markers\\)", Pattern.MULTILINE);

    @TempDir
    Path dir;

    private final CliRunner cli = new CliRunner();

    private static JsonNode read(Path trace) throws IOException {
        try (InputStream in = trace.toString().endsWith(".gz") ? new GZIPInputStream(Files.newInputStream(trace))
                : Files.newInputStream(trace)) {
            return TraceJson.MAPPER.readTree(in);
        }
    }

    /** Checks the printed line against the file; returns the file's traceEvents length. */
    private long printedEqualsFile(Path trace) throws IOException {
        Matcher m = WROTE.matcher(cli.stdout());
        assertTrue(m.find(), cli.stdout());
        assertEquals(trace.toString(), m.group(1));
        JsonNode t = read(trace);
        long inFile = t.get("traceEvents").size();
        long metadataRows = 0;
        for (JsonNode e : t.get("traceEvents")) {
            String ph = e.path("ph").asText();
            metadataRows += ph.equals("M") || ph.equals("i") || "Trace".equals(e.path("cat").asText()) ? 1 : 0;
        }
        assertEquals(inFile, Long.parseLong(m.group(2)), "printed trace events = traceEvents in the file");
        assertEquals(t.get("flagtrace").get("events").asLong(), Long.parseLong(m.group(3)), "the file's own count of records, ops, flows");
        assertEquals(metadataRows, Long.parseLong(m.group(4)), "row labels and window markers");
        assertEquals(inFile, Long.parseLong(m.group(3)) + Long.parseLong(m.group(4)));
        return inFile;
    }

    @Test
    void replayOfEveryKindOfInputPrintsWhatTheFileHolds() throws IOException {
        for (String capture : List.of("h200-app", "h200-app-tiny2k", "h200-mt4", "h200-java-parity")) {
            Path trace = dir.resolve(capture + ".json");
            List<String> args = new java.util.ArrayList<>(List.of("replay", Captures.capture(capture).toString(), "-o", trace.toString()));
            if (Files.exists(Captures.ops(capture))) {
                args.addAll(List.of("--ops", Captures.ops(capture).toString()));
            }
            assertEquals(0, cli.run(args.toArray(new String[0])), cli.stderr());
            assertTrue(printedEqualsFile(trace) > 100, capture);
        }
        Path gz = dir.resolve("tiny30k.json.gz");
        assertEquals(0, cli.run("replay", Captures.capture("h200-tiny30k").toString(), "-o", gz.toString()), cli.stderr());
        assertTrue(printedEqualsFile(gz) > 100_000);
    }

    @Test
    void theDemoAndAJournalExportPrintWhatTheirFilesHold() throws IOException {
        assertEquals(0, cli.run("demo", "-o", dir.resolve("demo").toString()), cli.stderr());
        assertEquals(378, printedEqualsFile(dir.resolve("demo/trace.json")), "the bundled capture's 344 events, its 20 GPU annotations and 14 labels");

        Path journal = dir.resolve("j");
        Path direct = dir.resolve("direct.json");
        assertEquals(0, cli.run("replay", Captures.capture("h200-app").toString(), "--ops", Captures.ops("h200-app").toString(),
                "--journal", journal.toString(), "-o", direct.toString()), cli.stderr());
        printedEqualsFile(direct);
        Path exported = dir.resolve("exported.json");
        assertEquals(0, cli.run("replay", journal.toString(), "-o", exported.toString()), cli.stderr());
        printedEqualsFile(exported);
    }
}
