package org.flagos.trace.ingest;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.flagos.trace.model.DeviceClockMapping;

/**
 * The device clock mapping saved beside a capture ({@code NAME.clock.json}):
 * {@code {"vendor_ns": V, "epoch_ns": E, "rate": R}}. Absent for vendors whose records are in epoch ns.
 */
public final class DeviceClockFile {
    private static final JsonFactory JSON = new JsonFactory();

    /** Where the mapping of {@code capture} lives. */
    public static Path besides(Path capture) {
        return CaptureSidecars.CLOCK.besides(capture);
    }

    public static void write(Path path, DeviceClockMapping mapping) throws IOException {
        try (OutputStream out = Files.newOutputStream(path); JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeNumberField("vendor_ns", mapping.vendorNs());
            g.writeNumberField("epoch_ns", mapping.epochNs());
            g.writeNumberField("rate", mapping.rate());
            g.writeEndObject();
        }
    }

    /** Reads a mapping; a malformed file is a {@link CaptureFormatException} naming it. */
    public static DeviceClockMapping read(Path path) {
        Long vendor = null;
        Long epoch = null;
        Double rate = null;
        InputFiles.requireRegular(path, "a device clock");
        try (JsonParser p = JSON.createParser(path.toFile())) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new CaptureFormatException(path + ": a clock mapping is one JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                switch (field) {
                    case "vendor_ns" -> vendor = integer(p, value, path, field);
                    case "epoch_ns" -> epoch = integer(p, value, path, field);
                    case "rate" -> {
                        if (!value.isNumeric()) {
                            throw new CaptureFormatException(path + ": rate must be a number");
                        }
                        rate = p.getDoubleValue();
                    }
                    default -> p.skipChildren();
                }
            }
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new CaptureFormatException(path + ": not a clock mapping (invalid JSON: " + e.getOriginalMessage() + ")");
        } catch (IOException e) {
            throw new CaptureFormatException(path + ": cannot read (" + InputFiles.reason(e) + ")", e);
        }
        if (vendor == null || epoch == null || rate == null) {
            throw new CaptureFormatException(path + ": needs vendor_ns, epoch_ns and rate");
        }
        try {
            return new DeviceClockMapping(vendor, epoch, rate);
        } catch (IllegalArgumentException e) {
            throw new CaptureFormatException(path + ": " + e.getMessage());
        }
    }

    private static long integer(JsonParser p, JsonToken value, Path path, String field) throws IOException {
        if (value != JsonToken.VALUE_NUMBER_INT) {
            throw new CaptureFormatException(path + ": " + field + " must be an integer");
        }
        return p.getLongValue();
    }

    private DeviceClockFile() {
    }
}
