package org.flagos.trace.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import org.flagos.trace.ingest.CaptureFormatException;
import org.flagos.trace.ingest.DevicePropertiesFile;
import org.flagos.trace.model.DeviceProperties;

/**
 * Fuzz target: a device properties file ({@code --device-properties FILE.json}, or
 * {@code NAME.devices.json} beside a capture) through {@link DevicePropertiesFile#read(Path)} (a
 * scratch file under {@code target/}). Bad content must be a {@link CaptureFormatException}.
 *
 * <p>Seeds: {@code src/test/resources/org/flagos/trace/fuzz/DevicePropertiesFileFuzzTestInputs/read/}.
 */
class DevicePropertiesFileFuzzTest {
    private static final Path FILE = FuzzScratch.file("fuzz.devices.json");

    @FuzzTest(maxDuration = "3m")
    void read(byte[] file) {
        List<DeviceProperties> devices;
        try {
            devices = DevicePropertiesFile.read(FuzzScratch.write(FILE, file));
        } catch (CaptureFormatException | UncheckedIOException expected) {
            return;
        }
        for (DeviceProperties device : devices) {
            if (device == null || device.name() == null) {
                throw new IllegalStateException("accepted a device without a name");
            }
        }
    }
}
