package org.flagos.trace.journal;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.capture.CaptureJournal;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.capture.JournalReplay;
import org.flagos.trace.cli.TestDevices;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.ingest.OpsJsonlReader;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;

/** Journals of the bundled captures, and their exports, for the journal tests. */
final class JournalFixtures {
    static CaptureReplay.Request request(String capture) {
        return CaptureReplay.Request.of(CaptureBytes.load(Captures.capture(capture)), capture)
                .ops(OpsJsonlReader.read(Captures.ops(capture)))
                .kernelNames(KernelNameFile.read(Captures.names(capture))).devices(TestDevices.h200()).ringSize(1 << 12)
                .build();
    }

    /** Journals {@code capture} into {@code dir}. */
    static void journal(String capture, Path dir) {
        try {
            CaptureJournal.write(request(capture), KernelNameFile.read(Captures.names(capture)).entries(), JournalOptions.to(dir));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The export of {@code window} of the journal in {@code dir}: its bytes and result. */
    record Export(byte[] bytes, JournalReplay.Result result) {
        JsonNode trace() {
            try {
                return TraceJson.MAPPER.readTree(bytes);
            } catch (IOException e) {
                throw new AssertionError("trace does not parse: " + e.getMessage(), e);
            }
        }
    }

    static Export export(Path dir, JournalWindow window) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            JournalReplay.Result result = JournalReplay.run(JournalReplay.Request.of(dir, window), out);
            return new Export(out.toByteArray(), result);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /** The complete ("X") events of a trace. */
    static List<JsonNode> complete(JsonNode trace) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("X".equals(e.path("ph").asText())) {
                out.add(e);
            }
        }
        return out;
    }

    private JournalFixtures() {
    }
}
