package org.flagos.trace.fuzz;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.flagos.trace.capture.CaptureFailedException;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.ingest.CaptureFormatException;

/**
 * The fuzz targets' shared first step: the fuzzer's bytes framed as one CUPTI buffer of a capture
 * ({@code FLTRBUF1}, vendor 1), replayed whole with a small ring, and the trace parsed strictly
 * (trailing tokens refused).
 */
final class OneCuptiBuffer {
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final byte[] MAGIC = "FLTRBUF1".getBytes(StandardCharsets.US_ASCII);

    /** A replay's parsed trace and its result. */
    record Replayed(JsonNode trace, CaptureReplay.Result result) {
    }

    private OneCuptiBuffer() {
    }

    /** The replay of {@code buffer}; null when the replay refused it with its one clear line (not a finding). */
    static Replayed replay(byte[] buffer) throws IOException, InterruptedException {
        ByteBuffer capture = ByteBuffer.allocate(MAGIC.length + 16 + buffer.length).order(ByteOrder.LITTLE_ENDIAN);
        capture.put(MAGIC).putInt(1).putInt(0).putLong(buffer.length).put(buffer).flip();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CaptureReplay.Result result;
        try {
            result = CaptureReplay.run(CaptureReplay.Request.of(capture, "fuzz.fltrbuf").ringSize(1 << 8).build(), out);
        } catch (CaptureFormatException | CaptureFailedException expected) {
            return null;
        }
        return new Replayed(JSON.readTree(out.toByteArray()), result);
    }
}
