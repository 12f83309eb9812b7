package org.flagos.trace.testing;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Reads a capture's truth.jsonl: every record as CUPTI's own struct definitions decoded it. */
public final class TruthRecord {
    public static List<JsonNode> read(Path path) {
        List<JsonNode> out = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(Captures.open(path), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (!line.isBlank()) {
                    out.add(TraceJson.MAPPER.readTree(line));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    private TruthRecord() {
    }
}
