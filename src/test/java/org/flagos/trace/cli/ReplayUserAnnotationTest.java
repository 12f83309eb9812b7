package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.report.KeyAverages;
import org.flagos.trace.report.KeyAveragesRow;
import org.flagos.trace.report.TraceFile;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An ops file's user annotation (a step around the real H200 h200-app capture's ops, flagged
 * {@code "annotation":true}) replayed into every format: the JSON's {@code user_annotation} with
 * torch's args and its {@code gpu_user_annotation} spans, the events table's rows of the same
 * categories, the Perfetto trace's summary row equal to the JSON's; the same line without the flag
 * (an ops file written before it) replays as a {@code cpu_op}, as it always did.
 */
class ReplayUserAnnotationTest {
    private static final String STEP = "ProfilerStep#0";

    @TempDir
    Path dir;

    private final CliRunner cli = new CliRunner();

    /** h200-app with its ops file given one more op around all of them: the step, flagged or not. */
    private Path capture(String name, boolean flagged) throws Exception {
        Path capture = Files.copy(Captures.capture("h200-app"), dir.resolve(name + ".fltrbuf"));
        Files.copy(Captures.names("h200-app"), dir.resolve(name + ".names.tsv"));
        List<String> lines = new ArrayList<>(Files.readAllLines(Captures.ops("h200-app")));
        long start = TraceJson.MAPPER.readTree(lines.get(0)).get("window_start").asLong();
        long end = TraceJson.MAPPER.readTree(lines.get(lines.size() - 1)).get("window_end").asLong();
        lines.add(lines.size() - 1, "{\"name\":\"" + STEP + "\",\"external_id\":1000,\"start\":" + (start + 1) + ",\"end\":" + (end - 1)
                + (flagged ? ",\"annotation\":true}" : "}"));
        Files.write(dir.resolve(name + ".ops.jsonl"), lines);
        return capture;
    }

    private static List<String> categoriesOf(JsonNode trace, String name) {
        List<String> out = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if (name.equals(e.path("name").asText())) {
                out.add(e.get("cat").asText());
            }
        }
        return out;
    }

    @Test
    void aFlaggedOpIsAUserAnnotationInEveryFormatAndAnUnflaggedOneACpuOp() throws Exception {
        Path capture = capture("step", true);
        Path json = dir.resolve("step.json");
        Path parquet = dir.resolve("step.parquet");
        Path pftrace = dir.resolve("step.pftrace");
        for (Path out : List.of(json, parquet, pftrace)) {
            assertEquals(0, cli.run("replay", capture.toString(), "-o", out.toString()), cli.stderr());
        }
        JsonNode trace = TraceJson.MAPPER.readTree(json.toFile());
        List<String> cats = categoriesOf(trace, STEP);
        assertEquals("user_annotation", cats.get(0));
        assertTrue(cats.size() > 1 && cats.subList(1, cats.size()).stream().allMatch("gpu_user_annotation"::equals),
                "the step's spans on the streams its ops' work ran on: " + cats);
        for (JsonNode e : trace.get("traceEvents")) {
            if ("user_annotation".equals(e.path("cat").asText())) {
                List<String> keys = new ArrayList<>();
                e.get("args").fieldNames().forEachRemaining(keys::add);
                assertEquals(List.of("External id", "Record function id", "Ev Idx"), keys, e.toString());
                assertEquals(1000, e.get("args").get("External id").asLong());
            }
        }
        long ops = Files.readAllLines(Captures.ops("h200-app")).size() - 2; // less the window lines
        assertEquals(ops + 1, trace.get("flagtrace").get("decoded").get("host_ops").asLong(), "the step is counted among the host ops");

        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT cat, count(*) FROM '" + parquet.toAbsolutePath() + "' WHERE name = '" + STEP
                     + "' GROUP BY cat ORDER BY cat")) {
            List<String> rows = new ArrayList<>();
            while (r.next()) {
                rows.add(r.getString(1) + " " + r.getLong(2));
            }
            assertEquals(List.of("gpu_user_annotation " + (cats.size() - 1), "user_annotation 1"), rows);
        }

        KeyAveragesRow fromJson = KeyAverages.of(TraceFile.read(json)).row(STEP);
        KeyAveragesRow fromPerfetto = KeyAverages.of(TraceFile.read(pftrace)).row(STEP);
        assertEquals(1, fromJson.count());
        assertTrue(fromJson.deviceTotalUs() > 0, "the step's total holds its ops' device time");
        assertEquals(fromJson.count(), fromPerfetto.count());
        assertEquals(fromJson.cpuTotalUs(), fromPerfetto.cpuTotalUs(), 1e-3);
        assertEquals(fromJson.deviceTotalUs(), fromPerfetto.deviceTotalUs(), 1e-3);

        Path plain = capture("plain", false);
        Path plainJson = dir.resolve("plain.json");
        assertEquals(0, cli.run("replay", plain.toString(), "-o", plainJson.toString()), cli.stderr());
        List<String> plainCats = categoriesOf(TraceJson.MAPPER.readTree(plainJson.toFile()), STEP);
        assertEquals("cpu_op", plainCats.get(0), "no flag: an op, whatever its name");
        assertFalse(plainCats.contains("user_annotation"));
        assertEquals(cats.subList(1, cats.size()), plainCats.subList(1, plainCats.size()), "the same spans either way");
    }
}
