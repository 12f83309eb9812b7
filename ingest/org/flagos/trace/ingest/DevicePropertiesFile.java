package org.flagos.trace.ingest;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.JsonTokenKind;

/**
 * Reads device properties: a JSON array of device objects, or any object with a
 * {@code deviceProperties} array (so a torch trace from the same machine works as-is).
 */
public final class DevicePropertiesFile {
    private static final JsonFactory JSON = new JsonFactory();
    private static final String[] REQUIRED = {
        "id", "name", "totalGlobalMem", "computeMajor", "computeMinor", "maxThreadsPerBlock",
        "maxThreadsPerMultiprocessor", "regsPerBlock", "warpSize", "sharedMemPerBlock", "numSms",
        "regsPerMultiprocessor", "sharedMemPerBlockOptin", "sharedMemPerMultiprocessor",
    };

    /** Reads a regular file; every problem is a one-line {@link CaptureFormatException} naming it. */
    public static List<DeviceProperties> read(Path path) {
        InputFiles.requireRegular(path, "a device properties");
        try (InputStream in = Files.newInputStream(path)) {
            return read(in, path.toString());
        } catch (NoSuchFileException e) {
            throw new CaptureFormatException(path + ": no such file");
        } catch (IOException e) {
            throw new CaptureFormatException(path + ": cannot read device properties (" + InputFiles.reason(e) + ")", e);
        }
    }

    /** Reads device properties from {@code in}; errors name {@code source}. */
    public static List<DeviceProperties> read(InputStream in, String source) throws IOException {
        try (JsonParser p = JSON.createParser(in)) {
            JsonToken first = p.nextToken();
            if (first == JsonToken.START_OBJECT) {
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String field = p.currentName();
                    JsonToken value = p.nextToken();
                    if (field.equals("deviceProperties") && value == JsonToken.START_ARRAY) {
                        return devices(p, source);
                    }
                    p.skipChildren();
                }
                throw new CaptureFormatException(source + ": no deviceProperties array");
            }
            if (first == JsonToken.START_ARRAY) {
                return devices(p, source);
            }
            throw new CaptureFormatException(source + ": expected a deviceProperties array or an object holding one");
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new CaptureFormatException(source + ": invalid JSON (" + e.getOriginalMessage() + ")");
        }
    }

    private static List<DeviceProperties> devices(JsonParser p, String source) throws IOException {
        List<DeviceProperties> devices = new ArrayList<>();
        JsonToken entry;
        while ((entry = p.nextToken()) != JsonToken.END_ARRAY) {
            if (entry != JsonToken.START_OBJECT) {
                throw new CaptureFormatException(source + ": device " + devices.size() + " is " + kind(entry)
                        + ", not a JSON object; deviceProperties is a list of objects such as {\"id\": 0, \"name\": ...}"
                        + " (a torch trace's deviceProperties works as it is)");
            }
            Map<String, Object> fields = new HashMap<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (value == JsonToken.VALUE_NUMBER_INT) {
                    fields.put(field, p.getLongValue());
                } else if (value == JsonToken.VALUE_STRING) {
                    fields.put(field, p.getText());
                } else {
                    p.skipChildren();
                }
            }
            for (String required : REQUIRED) {
                Object v = fields.get(required);
                if (v == null || (required.equals("name") ? !(v instanceof String) : !(v instanceof Long))) {
                    throw new CaptureFormatException(source + ": device " + devices.size() + " lacks " + required);
                }
            }
            try {
                devices.add(device(fields, source));
            } catch (IllegalArgumentException e) {
                throw new CaptureFormatException(source + ": device " + devices.size() + ": " + e.getMessage());
            }
        }
        return List.copyOf(devices);
    }

    private static String kind(JsonToken token) {
        if (token == null) {
            return "missing (the file ends inside the list)";
        }
        return JsonTokenKind.words(token);
    }

    private static DeviceProperties device(Map<String, Object> fields, String source) {
        return new DeviceProperties(
                    i(fields, "id"), (String) fields.get("name"), l(fields, "totalGlobalMem"),
                    i(fields, "computeMajor"), i(fields, "computeMinor"), i(fields, "maxThreadsPerBlock"),
                    i(fields, "maxThreadsPerMultiprocessor"), i(fields, "regsPerBlock"), i(fields, "warpSize"),
                    l(fields, "sharedMemPerBlock"), i(fields, "numSms"), i(fields, "regsPerMultiprocessor"),
                    l(fields, "sharedMemPerBlockOptin"), l(fields, "sharedMemPerMultiprocessor"));
    }

    private static int i(Map<String, Object> f, String k) {
        long v = (Long) f.get(k);
        if (v != (int) v) {
            throw new IllegalArgumentException(k + " " + v + " does not fit in 32 bits");
        }
        return (int) v;
    }

    private static long l(Map<String, Object> f, String k) {
        return (Long) f.get(k);
    }

    /** Beside a capture: {@code NAME.fltrbuf} to {@code NAME.devices.json}. */
    public static Path besides(Path capture) {
        return CaptureSidecars.DEVICES.besides(capture);
    }

    /** Writes {@code devices} as a {@code deviceProperties} document that {@link #read} accepts. */
    public static void write(Path path, List<DeviceProperties> devices) throws IOException {
        try (com.fasterxml.jackson.core.JsonGenerator g = JSON.createGenerator(Files.newOutputStream(path))) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeArrayFieldStart("deviceProperties");
            for (DeviceProperties p : devices) {
                p.writeJson(g);
            }
            g.writeEndArray();
            g.writeEndObject();
        }
    }

    private DevicePropertiesFile() {
    }
}
