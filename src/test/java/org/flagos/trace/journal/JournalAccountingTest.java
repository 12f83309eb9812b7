package org.flagos.trace.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.flagos.trace.capture.CaptureJournal;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.capture.JournalReplay;
import org.flagos.trace.cli.TestDevices;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.stages.ExternalCorrelationJoin;
import org.flagos.trace.testing.SyntheticCapture;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A journal of a capture's replay accounts for its records exactly as the replay of the capture
 * does, also when the capture holds more records than the reorder horizon: the journal holds the
 * ops before the buffers, and an export that published them in journal order had them settle a
 * horizon before their device records came (issue 14: 330,352 of 1M records "without op", 0 in
 * the direct replay).
 */
class JournalAccountingTest {
    @TempDir
    Path tmp;

    @Test
    void aJournalOfALongCaptureAccountsAsTheCapturesReplayDoes() throws Exception {
        SyntheticCapture source = new SyntheticCapture();
        int repetitions = source.repetitionsFor(2L * ExternalCorrelationJoin.DEFAULT_HORIZON + 1);
        Path capture = tmp.resolve("long.fltrbuf");
        Path ops = tmp.resolve("long.ops.jsonl");
        source.write(capture, repetitions);
        source.writeOps(ops, repetitions);
        Path names = KernelNameFile.besides(capture);
        CaptureReplay.Request request = CaptureReplay.request(capture, ops, names, TestDevices.h200(), Map.of());

        Path direct = tmp.resolve("direct.json");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(direct))) {
            CaptureReplay.run(request, out);
        }
        Path journal = tmp.resolve("journal");
        CaptureJournal.write(request, KernelNameFile.read(names).entries(), JournalOptions.to(journal));
        Path exported = tmp.resolve("exported.json");
        JournalReplay.Result result;
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(exported))) {
            result = JournalReplay.run(JournalReplay.Request.of(journal, JournalWindow.ALL), out);
        }

        assertEquals(null, result.replay().truncation(), "nothing lost");
        JsonNode expected = accounting(direct);
        JsonNode actual = accounting(exported);
        assertTrue(expected.path("device_records_without_op").isNumber(), expected.toString());
        assertEquals(expected.path("device_records_without_op"), actual.path("device_records_without_op"));
        assertEquals(expected, actual, "the whole accounting block");
    }

    /** The trace's {@code flagtrace} block, read without the events, less the ring-full counters (thread timing). */
    private static JsonNode accounting(Path trace) throws IOException {
        try (JsonParser p = TraceJson.MAPPER.getFactory().createParser(trace.toFile())) {
            p.nextToken();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.getCurrentName();
                p.nextToken();
                if (name.equals("flagtrace")) {
                    ObjectNode block = TraceJson.MAPPER.readTree(p);
                    block.remove("ring_full");
                    return block;
                }
                p.skipChildren();
            }
        }
        throw new AssertionError(trace + " has no flagtrace block");
    }
}
