package org.flagos.trace.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.flagos.trace.model.DeviceProperties;

/** The bundled H200 device properties, for tests. */
public final class TestDevices {
    public static List<DeviceProperties> h200() {
        try {
            return Devices.read("h200");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private TestDevices() {
    }
}
