package org.flagos.trace.ingest;

import java.nio.file.Path;
import java.util.List;

/**
 * An ops file checked whole by {@link OpsJsonlReader#scan(Path)} and streamed again, line by
 * line, by each {@link #cursor()}: a replay holds the ops it has not yet published, never the file.
 *
 * @param ops the number of op lines
 */
public record OpsJsonlFile(Path path, long windowStartNs, long windowEndNs, long ops, List<String> warnings)
        implements HostOpSource {
    @Override
    public HostOpCursor cursor() {
        return OpsJsonlReader.cursor(path);
    }
}
