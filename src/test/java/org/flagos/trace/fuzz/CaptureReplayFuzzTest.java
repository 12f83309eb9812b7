package org.flagos.trace.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.flagos.trace.capture.CaptureFailedException;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.cli.TestDevices;
import org.flagos.trace.ingest.CaptureFormatException;
import org.flagos.trace.ingest.DevicePropertiesFile;
import org.flagos.trace.ingest.HostOps;
import org.flagos.trace.ingest.IngestFuzzAccess;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.KernelNames;

/**
 * Fuzz target: a whole replay, as {@code flagtrace replay} runs it, from one input that bundles
 * the capture with its ops file, kernel name table and device properties. The trace must parse
 * as JSON (Jackson databind, trailing tokens rejected). {@link CaptureFormatException} and
 * {@link CaptureFailedException} are expected outcomes; any other exception, or a trace that is
 * not JSON, is a finding.
 *
 * <p>Input layout: {@link ReplayInput}.
 *
 * <p>Seeds: {@code src/test/resources/org/flagos/trace/fuzz/CaptureReplayFuzzTestInputs/replay/}.
 */
class CaptureReplayFuzzTest {
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final List<DeviceProperties> H200 = TestDevices.h200();
    private static final Path NAMES_FILE = FuzzScratch.file("fuzz.names.tsv");
    private static final Path DEVICES_FILE = FuzzScratch.file("fuzz.devices.json");

    @FuzzTest(maxDuration = "3m")
    void replay(byte[] input) throws IOException, InterruptedException {
        ReplayInput parts = ReplayInput.split(input);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            HostOps ops = parts.ops() == null ? null : IngestFuzzAccess.readOps(new BufferedReader(new InputStreamReader(
                    new ByteArrayInputStream(parts.ops()), StandardCharsets.UTF_8)), "fuzz.ops.jsonl");
            KernelNames names = parts.names() == null ? KernelNames.NONE
                    : KernelNameFile.read(FuzzScratch.write(NAMES_FILE, parts.names()));
            List<DeviceProperties> devices = parts.devicesJson() != null
                    ? DevicePropertiesFile.read(FuzzScratch.write(DEVICES_FILE, parts.devicesJson()))
                    : parts.h200() ? H200 : List.of();
            CaptureReplay.Request request = CaptureReplay.Request.of(ByteBuffer.wrap(parts.capture()).order(ByteOrder.LITTLE_ENDIAN), "fuzz.fltrbuf")
                    .ops(ops).kernelNames(names).devices(devices).ringSize(1 << 8).build();
            CaptureReplay.run(request, out);
        } catch (CaptureFormatException | CaptureFailedException | UncheckedIOException expected) {
            return;
        } catch (IOException inputsOnly) {
            // only the in-memory ops read throws it here; read(Path) turns it into CaptureFormatException
            return;
        }
        byte[] trace = out.toByteArray();
        try {
            JSON.readTree(trace);
        } catch (IOException e) {
            throw new IllegalStateException("the trace (" + trace.length + " bytes) is not valid JSON: " + e.getMessage(), e);
        }
    }
}
