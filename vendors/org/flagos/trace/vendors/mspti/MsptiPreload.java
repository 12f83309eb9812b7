package org.flagos.trace.vendors.mspti;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether libmspti.so was in the process's link map before anything could dlopen it: CANN records
 * copies and memsets only through symbol interposition, which works only when the library was
 * preloaded ({@code LD_PRELOAD}) at process start. An LD_PRELOAD string proves nothing (ld.so warns
 * and continues on a bad path), so the link map itself is read, once, when this class initializes,
 * before the tracer's own lazy dlopen could put the library there.
 */
final class MsptiPreload {
    private static final boolean PRELOADED = scan(Path.of("/proc/self/maps"));

    /** The link map as sampled at class initialization. */
    static boolean preloaded() {
        return PRELOADED;
    }

    private static boolean scan(Path maps) {
        try {
            return mapsHoldMspti(new String(Files.readAllBytes(maps), StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** True when a {@code /proc/PID/maps} text maps a file named {@code libmspti.so} (or {@code libmspti.so.N}). */
    static boolean mapsHoldMspti(String maps) {
        for (String line : maps.split("\n")) {
            int slash = line.indexOf('/');
            if (slash < 0) {
                continue; // anonymous, [heap], [stack], ...
            }
            String path = line.substring(slash).trim();
            if (path.endsWith(" (deleted)")) {
                path = path.substring(0, path.length() - " (deleted)".length());
            }
            String file = path.substring(path.lastIndexOf('/') + 1);
            if (file.equals("libmspti.so") || file.startsWith("libmspti.so.")) {
                return true;
            }
        }
        return false;
    }

    private MsptiPreload() {
    }
}
