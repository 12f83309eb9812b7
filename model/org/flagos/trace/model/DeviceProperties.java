package org.flagos.trace.model;

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

    /**
     * Occupancy divides by these and arrays are sized by the id: a value outside what any device
     * has is refused here, whoever built the properties (a file, a live query).
     */
    public DeviceProperties {
        range("id", id, 0, RecordLimits.MAX_DEVICES - 1);
        range("computeMajor", computeMajor, 0, 1_000);
        range("computeMinor", computeMinor, 0, 1_000);
        range("warpSize", warpSize, 1, 1_024);
        range("maxThreadsPerBlock", maxThreadsPerBlock, warpSize, 1 << 16);
        range("maxThreadsPerMultiprocessor", maxThreadsPerMultiprocessor, warpSize, 1 << 16);
        range("regsPerBlock", regsPerBlock, 1, 1 << 24);
        range("regsPerMultiprocessor", regsPerMultiprocessor, 1, 1 << 24);
        range("numSms", numSms, 0, 1 << 16); // 0 is handled: per-SM figures print "inf", as kineto does
        range("totalGlobalMem", totalGlobalMem, 0, 1L << 50);
        range("sharedMemPerBlock", sharedMemPerBlock, 0, 1L << 40);
        range("sharedMemPerBlockOptin", sharedMemPerBlockOptin, 0, 1L << 40);
        range("sharedMemPerMultiprocessor", sharedMemPerMultiprocessor, 0, 1L << 40);
        if (name == null) {
            throw new IllegalArgumentException("name is missing");
        }
    }

    private static void range(String field, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(field + " " + value + " is outside [" + min + ", " + max + "]");
        }
    }

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
