package org.flagos.trace.ingest;

import java.io.BufferedReader;
import java.io.IOException;

/**
 * Lets the fuzz targets in {@code org.flagos.trace.fuzz} call the ops reader's in-memory entry
 * point (package-private), so each fuzz input does not go through a file.
 */
public final class IngestFuzzAccess {
    /** {@link OpsJsonlReader#read(BufferedReader, String)}; its IOExceptions are what read(Path) turns into CaptureFormatException. */
    public static HostOps readOps(BufferedReader in, String source) throws IOException {
        return OpsJsonlReader.read(in, source);
    }

    private IngestFuzzAccess() {
    }
}
