package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.flagos.trace.testing.TorchTables;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code flagtrace summary}: the table, its options, the JSON rows, and one line for bad input. */
class SummaryCommandTest {
    @TempDir
    Path dir;
    final CliRunner cli = new CliRunner();

    static Path torchTrace() {
        try {
            return Path.of(SummaryCommandTest.class.getResource("/torch-reference/torch_trace.json").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Row names of a printed table, top to bottom. */
    static List<String> names(String table) {
        List<String> out = new ArrayList<>();
        String[] lines = table.split("\n");
        int width = lines[0].indexOf(' ');
        for (int i = 3; i < lines.length && !lines[i].startsWith("---"); i++) {
            out.add(lines[i].substring(0, width).trim());
        }
        return out;
    }

    @Test
    void printsTorchsTableOfTorchsTrace() throws IOException {
        assertEquals(0, cli.run("summary", torchTrace().toString(), "--wide"));
        Path reference = torchTrace().resolveSibling("key_averages.txt");
        TorchTables.assertTorchsTableButTheNestedSort(Files.readString(reference), cli.stdout(),
                "default sort is torch's self_device_time_total");
    }

    @Test
    void gzippedTraceSortAndLimit() throws IOException {
        Path gz = dir.resolve("t.json.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
            Files.copy(torchTrace(), out);
        }
        assertEquals(0, cli.run("summary", gz.toString(), "--sort", "count", "--limit", "3", "--wide"));
        // 15 and 10 calls, then three names of 6 calls: ties keep first-appearance order, as torch's stable sort
        assertEquals(List.of("cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemsetAsync"), names(cli.stdout()));
        assertEquals(0, cli.run("summary", gz.toString(), "--sort", "self_cpu_time_total", "--limit", "2", "--wide"));
        assertEquals(List.of("aten::normal_", "Activity Buffer Request"), names(cli.stdout()));
        assertEquals(0, cli.run("summary", gz.toString(), "--sort", "cuda_time_total", "--limit", "1", "--wide"));
        assertEquals(List.of("aten::copy_"), names(cli.stdout()), "cuda_ spelling of device_time_total");
    }

    @Test
    void jsonRowsCarryTorchsFields() throws IOException {
        Path json = dir.resolve("s.json");
        assertEquals(0, cli.run("summary", torchTrace().toString(), "--json", json.toString(), "--limit", "5"));
        JsonNode doc = new ObjectMapper().readTree(json.toFile());
        assertEquals(5, doc.get("rows").size());
        assertEquals(39, doc.get("rows_total").asInt());
        assertEquals("CUDA", doc.get("device_label").asText());
        assertEquals(337.595, doc.get("self_device_time_total_us").asDouble(), 1e-9);
        JsonNode mm = null;
        for (JsonNode row : doc.get("rows")) {
            if (row.get("name").asText().equals("aten::mm")) {
                mm = row;
            }
        }
        assertEquals(5, mm.get("count").asInt());
        assertEquals("host", mm.get("kind").asText());
        assertEquals(32.0, mm.get("self_device_time_total_us").asDouble(), 1e-9);
        assertEquals(6.4, mm.get("device_time_avg_us").asDouble(), 1e-9);
        assertEquals("device", doc.get("rows").get(1).get("kind").asText());
    }

    @Test
    void badInputIsOneLineAndExitOne() throws IOException {
        Path notJson = Files.writeString(dir.resolve("a.json"), "this is not json");
        Path notTrace = Files.writeString(dir.resolve("b.json"), "{\"hello\": [1, 2, 3]}");
        Path array = Files.writeString(dir.resolve("c.json"), "[1, 2]");
        byte[] whole = Files.readAllBytes(torchTrace());
        Path cutJson = dir.resolve("d.json");
        Files.write(cutJson, java.util.Arrays.copyOf(whole, whole.length / 2));
        Path gz = dir.resolve("e.json.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
            out.write(whole);
        }
        byte[] zipped = Files.readAllBytes(gz);
        Path cutGz = dir.resolve("f.json.gz");
        Files.write(cutGz, java.util.Arrays.copyOf(zipped, zipped.length / 2));
        for (Path bad : List.of(notJson, notTrace, array, cutJson, cutGz, dir.resolve("missing.json"))) {
            assertEquals(1, cli.run("summary", bad.toString()), bad.toString());
            String err = cli.stderr();
            assertEquals(1, err.strip().split("\n").length, "one line: " + err);
            assertTrue(err.startsWith("flagtrace: error: " + bad), err);
            assertEquals("", cli.stdout());
        }
        assertEquals(1, cli.run("summary", cutGz.toString()));
        assertTrue(cli.stderr().contains("gzip"), cli.stderr());
        assertEquals(1, cli.run("summary", cutJson.toString()));
        assertTrue(cli.stderr().contains("truncated"), cli.stderr());
    }

    @Test
    void usageErrorsExitTwo() {
        assertEquals(2, cli.run("summary"));
        assertEquals(2, cli.run("summary", torchTrace().toString(), "--sort", "flops"));
        assertTrue(cli.stderr().contains("self_cpu_time_total"), cli.stderr());
        assertEquals(2, cli.run("summary", torchTrace().toString(), "--limit", "-1"));
        assertEquals(2, cli.run("summary", torchTrace().toString(), "--json", torchTrace().toString()));
        assertFalse(cli.stderr().isEmpty());
        assertEquals(0, cli.run("summary", "--help"));
        assertTrue(cli.stdout().contains("--sort"));
    }
}
