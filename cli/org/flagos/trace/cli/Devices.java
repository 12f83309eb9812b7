package org.flagos.trace.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.ingest.CaptureFormatException;
import org.flagos.trace.ingest.DevicePropertiesFile;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.stages.TraceHeader;

/** What {@code --device-properties} and {@code --metadata} say, read once for every command that takes them. */
final class Devices {
    static final String H200 = "h200";
    /** The device property sets bundled in the jar, by the name {@code --device-properties} takes. */
    static final List<String> BUNDLED = List.of(H200);

    private Devices() {
    }

    /**
     * The devices a spec names: none for null, the bundled H200 for {@code h200}, else a JSON file or a torch trace.
     * A name that is neither a file nor bundled is a bad value of the option: a usage error (exit 2), as the help says.
     */
    static List<DeviceProperties> read(String spec) throws IOException {
        if (spec == null) {
            return List.of();
        }
        if (spec.equals(H200)) {
            try (InputStream in = Devices.class.getResourceAsStream("/org/flagos/trace/devices/nvidia-h200.json")) {
                if (in == null) {
                    throw new CaptureFormatException("bundled H200 device properties are missing from the jar");
                }
                return DevicePropertiesFile.read(in, "bundled nvidia-h200.json");
            }
        }
        Path file = Path.of(spec);
        if (!Files.exists(file)) {
            throw new UsageException("--device-properties " + spec + ": no such file, and no bundled"
                    + " device of that name; the bundled ones are " + String.join(", ", BUNDLED) + ", and a JSON file of"
                    + " device properties or a torch trace (.json or .json.gz) from the same machine works too");
        }
        return DevicePropertiesFile.read(file);
    }

    /** The file a spec names, or null for none and for the bundled one. */
    static Path file(String spec) {
        return spec == null || spec.equals(H200) ? null : Path.of(spec);
    }

    /** {@code KEY=VALUE} pairs, in order; a reserved trace key or a pair without a key is a usage error. */
    static Map<String, String> metadata(List<String> pairs) {
        Map<String, String> metadata = new LinkedHashMap<>();
        for (String kv : pairs) {
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new UsageException("--metadata wants KEY=VALUE, got '" + kv + "'");
            }
            metadata.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        for (String reserved : TraceHeader.RESERVED_KEYS) {
            if (metadata.containsKey(reserved)) {
                throw new UsageException("--metadata cannot set the reserved key " + reserved);
            }
        }
        return metadata;
    }
}
