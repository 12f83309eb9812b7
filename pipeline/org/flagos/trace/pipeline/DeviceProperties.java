package org.flagos.trace.pipeline;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;

/**
 * The properties of one accelerator that the trace's {@code deviceProperties} block carries and that
 * kernel occupancy figures are computed from. Field names follow the torch/kineto trace schema.
 */
public record DeviceProperties(
        int id,
        String name,
        long totalGlobalMem,
        int computeMajor,
        int computeMinor,
        int maxThreadsPerBlock,
        int maxThreadsPerMultiprocessor,
        int regsPerBlock,
        int warpSize,
        long sharedMemPerBlock,
        int numSms,
        int regsPerMultiprocessor,
        long sharedMemPerBlockOptin,
        long sharedMemPerMultiprocessor) {

    /** Writes this device as one {@code deviceProperties} entry, with torch's field names. */
    public void writeJson(JsonGenerator g) throws IOException {
        g.writeStartObject();
        g.writeNumberField("id", id);
        JsonText.writeStringField(g, "name", name);
        g.writeNumberField("totalGlobalMem", totalGlobalMem);
        g.writeNumberField("computeMajor", computeMajor);
        g.writeNumberField("computeMinor", computeMinor);
        g.writeNumberField("maxThreadsPerBlock", maxThreadsPerBlock);
        g.writeNumberField("maxThreadsPerMultiprocessor", maxThreadsPerMultiprocessor);
        g.writeNumberField("regsPerBlock", regsPerBlock);
        g.writeNumberField("warpSize", warpSize);
        g.writeNumberField("sharedMemPerBlock", sharedMemPerBlock);
        g.writeNumberField("numSms", numSms);
        g.writeNumberField("regsPerMultiprocessor", regsPerMultiprocessor);
        g.writeNumberField("sharedMemPerBlockOptin", sharedMemPerBlockOptin);
        g.writeNumberField("sharedMemPerMultiprocessor", sharedMemPerMultiprocessor);
        g.writeEndObject();
    }
}
