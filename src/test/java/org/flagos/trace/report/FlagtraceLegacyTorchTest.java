package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URISyntaxException;
import java.nio.file.Path;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The summary of traces torch's legacy exporter wrote (torch 1.13 built without kineto, Debian's
 * CPU build: no {@code cat}, pid "CPU functions"), against torch's own {@code key_averages()} of the
 * same profiles ({@code src/test/resources/torch-legacy}, made by its make_traces.py): every row's
 * count, CPU total and self CPU total to the microsecond digits torch gives. {@code chain} nests an
 * op in an op of its own name (8 {@code deep} in {@code outer > deep > deep > outer > ...}: torch
 * counts each); {@code shapes} has touching siblings, zero-length events and nesting.
 */
class FlagtraceLegacyTorchTest {
    static Path resource(String name) {
        try {
            return Path.of(FlagtraceLegacyTorchTest.class.getResource("/torch-legacy/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"chain", "shapes"})
    void summaryIsTorchsKeyAverages(String name) throws Exception {
        KeyAverages ours = KeyAverages.of(TraceFile.read(resource(name + ".json")));
        JsonNode torch = TraceJson.MAPPER.readTree(resource(name + ".key_averages.json").toFile());
        int rows = 0;
        for (JsonNode want : torch.get("rows")) {
            String key = want.get("key").asText();
            KeyAveragesRow got = ours.row(key, false);
            assertNotNull(got, name + " " + key);
            assertEquals(want.get("count").asLong(), got.count(), name + " " + key + ": count");
            assertEquals(want.get("cpu_time_total").asDouble(), got.cpuTotalUs(), 0.0, name + " " + key + ": CPU total");
            assertEquals(want.get("self_cpu_time_total").asDouble(), got.selfCpuUs(), 0.0, name + " " + key + ": self CPU");
            rows++;
        }
        assertEquals(rows, ours.rows().size(), name + ": rows");
        if (name.equals("chain")) {
            assertEquals(8, ours.row("deep", false).count());
            assertTrue(rows >= 5);
        }
    }
}
