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
 * {@code {"vendor_ns": V, "epoch_ns": E, "rate": R}}, the first knot, and when the session's
 * mapping has more pieces, all of them as {@code "knots": [[V, E, R], ...]} ({@link
 * DeviceClockMapping}; a reader that knows only the first three fields places records by the
 * first piece). Absent for vendors whose records are in epoch ns.
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
            g.writeNumberField("vendor_ns", mapping.knotVendorNs(0));
            g.writeNumberField("epoch_ns", mapping.knotEpochNs(0));
            g.writeNumberField("rate", mapping.knotRate(0));
            if (mapping.knots() > 1) {
                g.writeArrayFieldStart("knots");
                for (int i = 0; i < mapping.knots(); i++) {
                    g.writeStartArray();
                    g.writeNumber(mapping.knotVendorNs(i));
                    g.writeNumber(mapping.knotEpochNs(i));
                    g.writeNumber(mapping.knotRate(i));
                    g.writeEndArray();
                }
                g.writeEndArray();
            }
            g.writeEndObject();
        }
    }

    /** Reads a mapping; a malformed file is a {@link CaptureFormatException} naming it. */
    public static DeviceClockMapping read(Path path) {
        Long vendor = null;
        Long epoch = null;
        Double rate = null;
        Knots knots = null;
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
                    case "knots" -> knots = Knots.read(p, value, path);
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
            if (knots != null) {
                if (knots.size == 0 || knots.vendor[0] != vendor || knots.epoch[0] != epoch || knots.rate[0] != rate) {
                    throw new CaptureFormatException(path + ": the first of knots must be the knot that vendor_ns, epoch_ns and rate give");
                }
                return knots.mapping();
            }
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

    /** The {@code knots} array as read, bounded by {@link DeviceClockMapping#MAX_KNOTS}. */
    private static final class Knots {
        final long[] vendor = new long[DeviceClockMapping.MAX_KNOTS];
        final long[] epoch = new long[DeviceClockMapping.MAX_KNOTS];
        final double[] rate = new double[DeviceClockMapping.MAX_KNOTS];
        int size;

        static Knots read(JsonParser p, JsonToken value, Path path) throws IOException {
            if (value != JsonToken.START_ARRAY) {
                throw new CaptureFormatException(path + ": knots must be an array of [vendor_ns, epoch_ns, rate]");
            }
            Knots k = new Knots();
            while (p.nextToken() != JsonToken.END_ARRAY) {
                if (p.currentToken() != JsonToken.START_ARRAY) {
                    throw new CaptureFormatException(path + ": knot " + k.size + " must be an array [vendor_ns, epoch_ns, rate]");
                }
                if (k.size == DeviceClockMapping.MAX_KNOTS) {
                    throw new CaptureFormatException(path + ": more than " + DeviceClockMapping.MAX_KNOTS + " knots");
                }
                k.vendor[k.size] = integer(p, p.nextToken(), path, "knot " + k.size + "'s vendor_ns");
                k.epoch[k.size] = integer(p, p.nextToken(), path, "knot " + k.size + "'s epoch_ns");
                JsonToken r = p.nextToken();
                if (r == null || !r.isNumeric()) {
                    throw new CaptureFormatException(path + ": knot " + k.size + "'s rate must be a number");
                }
                k.rate[k.size] = p.getDoubleValue();
                if (p.nextToken() != JsonToken.END_ARRAY) {
                    throw new CaptureFormatException(path + ": knot " + k.size + " must hold three numbers");
                }
                k.size++;
            }
            return k;
        }

        DeviceClockMapping mapping() {
            return DeviceClockMapping.ofKnots(java.util.Arrays.copyOf(vendor, size), java.util.Arrays.copyOf(epoch, size),
                    java.util.Arrays.copyOf(rate, size));
        }
    }
}
