package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The journal through the command line: journal a replay, export it whole and by window, refuse nonsense. */
class JournalCliTest {
    private static final String CAPTURE = "h200-app-tiny2k";
    private final CliRunner cli = new CliRunner();

    @TempDir
    Path tmp;

    @Test
    void aReplayJournalsAndTheJournalExportsTheSameEvents() throws IOException {
        Path journal = tmp.resolve("journal");
        Path direct = tmp.resolve("direct.json");
        assertEquals(0, cli.run("replay", Captures.capture(CAPTURE).toString(), "--ops", Captures.ops(CAPTURE).toString(),
                "--journal", journal.toString(), "-o", direct.toString()), cli.stderr());
        assertTrue(cli.stdout().contains("journaled 1 buffers"), cli.stdout());

        Path exported = tmp.resolve("exported.json.gz");
        Path summary = tmp.resolve("summary.json");
        assertEquals(0, cli.run("replay", journal.toString(), "-o", exported.toString(), "--summary", summary.toString()), cli.stderr());
        assertEquals(events(direct), events(exported));
        assertTrue(Files.size(summary) > 0);

        Path last = tmp.resolve("last.json");
        assertEquals(0, cli.run("replay", journal.toString(), "--last", "2ms", "-o", last.toString()), cli.stderr());
        assertTrue(cli.stdout().contains("window "), cli.stdout());
        int lastEvents = events(last).size();
        assertTrue(lastEvents > 0 && lastEvents < events(direct).size(), lastEvents + " events in the last 2 ms");
    }

    @Test
    void journalOptionsOutOfPlaceAreUsageErrors() {
        Path journal = tmp.resolve("journal");
        assertEquals(0, cli.run("replay", Captures.capture(CAPTURE).toString(), "--journal", journal.toString(),
                "-o", tmp.resolve("t.json").toString()), cli.stderr());

        assertEquals(2, cli.run("replay", Captures.capture(CAPTURE).toString(), "--from", "+1s", "-o", tmp.resolve("x.json").toString()));
        assertTrue(cli.stderr().contains("journal directory"), cli.stderr());
        assertEquals(2, cli.run("replay", journal.toString(), "--last", "soon", "-o", tmp.resolve("x.json").toString()));
        assertEquals(2, cli.run("replay", journal.toString(), "--ops", Captures.ops(CAPTURE).toString(), "-o", tmp.resolve("x.json").toString()));
        assertEquals(2, cli.run("replay", journal.toString(), "--journal", tmp.resolve("j2").toString(), "-o", tmp.resolve("x.json").toString()));
        // a journal is written into a new directory only
        assertEquals(1, cli.run("replay", Captures.capture(CAPTURE).toString(), "--journal", journal.toString(),
                "-o", tmp.resolve("y.json").toString()));
        assertTrue(cli.stderr().contains("is not empty"), cli.stderr());
        assertFalse(Files.exists(tmp.resolve("x.json")));
    }

    private static java.util.List<String> events(Path trace) throws IOException {
        JsonNode node = TraceJson.MAPPER.readTree(Captures.open(trace));
        java.util.List<String> events = new java.util.ArrayList<>();
        node.get("traceEvents").forEach(e -> events.add(e.toString()));
        return events;
    }
}
