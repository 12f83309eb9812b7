package org.flagos.trace.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.flagos.trace.capture.CaptureFailedException;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.ingest.CaptureFormatException;
import org.flagos.trace.model.KernelNames;

/**
 * Fuzz target: one CUPTI buffer holding MEMCPY2 records (copies between two GPUs,
 * {@code CUpti_ActivityMemcpyPtoP4}) with the runtime calls and bindings they correlate with,
 * replayed whole, so the peer-copy flyweight, the join and both writers' peer branch see hostile
 * input. The trace must parse; every copy decoded is drawn (none lost, none invented); every peer
 * copy carries kineto's args in kineto's order, on the row of the device that ran it. Any exception
 * is a finding.
 *
 * <p>Seeds: {@code src/test/resources/org/flagos/trace/fuzz/CuptiPeerCopyFuzzTestInputs/replay/}:
 * the real h200-managed capture's first buffer with synthetic peer copies after it, the peer copies
 * alone (device 0 to 1, 1 to 0, a graph node), agitators (a copy before its call, one without a call,
 * a duplicate, a zero-length and a reversed one), a lone record.
 */
class CuptiPeerCopyFuzzTest {
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final byte[] MAGIC = "FLTRBUF1".getBytes(StandardCharsets.US_ASCII);
    /** kineto's PtoP args after the optional External id, before the optional correlation and graph ids. */
    private static final List<String> PEER_HEAD = List.of("fromDevice", "inDevice", "toDevice", "fromContext", "inContext",
            "toContext", "stream");

    @FuzzTest(maxDuration = "3m")
    void replay(byte[] buffer) throws IOException, InterruptedException {
        ByteBuffer capture = ByteBuffer.allocate(MAGIC.length + 16 + buffer.length).order(ByteOrder.LITTLE_ENDIAN);
        capture.put(MAGIC).putInt(1).putInt(0).putLong(buffer.length).put(buffer).flip();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            CaptureReplay.run(new CaptureReplay.Request(capture, "fuzz.fltrbuf", null, KernelNames.NONE,
                    List.of(), Map.of(), "fuzz.fltrbuf", UnaryOperator.identity(), 1 << 8), out);
        } catch (CaptureFormatException | CaptureFailedException expected) {
            return;
        }
        JsonNode trace = JSON.readTree(out.toByteArray());
        long drawn = 0;
        for (JsonNode e : trace.get("traceEvents")) {
            if (!"gpu_memcpy".equals(e.path("cat").asText())) {
                continue;
            }
            drawn++;
            JsonNode args = e.get("args");
            if (!args.has("fromDevice")) {
                continue;
            }
            List<String> keys = new ArrayList<>();
            args.fieldNames().forEachRemaining(keys::add);
            if (keys.get(0).equals("External id")) {
                keys.remove(0);
            }
            if (!keys.subList(0, Math.min(keys.size(), PEER_HEAD.size())).equals(PEER_HEAD) || args.has("device")
                    || args.has("context")) {
                throw new IllegalStateException("not kineto's PtoP args: " + e);
            }
            if (args.get("inDevice").asLong() != (e.get("pid").asLong() & 0xFFFF_FFFFL)) {
                throw new IllegalStateException("not on the row of the device that ran it: " + e);
            }
        }
        long decoded = trace.get("flagtrace").get("decoded").path("gpu_memcpy").asLong(0);
        if (drawn != decoded) {
            throw new IllegalStateException(decoded + " copies decoded, " + drawn + " drawn");
        }
    }
}
