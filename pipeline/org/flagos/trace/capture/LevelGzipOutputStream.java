package org.flagos.trace.capture;

import java.io.IOException;
import java.io.OutputStream;
import java.util.zip.GZIPOutputStream;

/**
 * The JDK's gzip stream at a chosen deflate level (its own is fixed at the default, 6), on the
 * writing thread. A {@code .gz} output uses level 1 ({@link AtomicOutput#GZIP_LEVEL}): the time this
 * output was slow at went away with the level, not with compressing on other threads
 * (docs/benchmarks.md, "Compressed output"). {@link #flush()} cuts no deflate block (no sync flush):
 * the bytes of the file do not depend on when the trace writers flush.
 */
final class LevelGzipOutputStream extends GZIPOutputStream {
    /** Uncompressed bytes handed to the deflater at a time, and compressed bytes written at a time. */
    private static final int BUFFER = 1 << 16;

    /** @param level 1 (fastest) to 9 (smallest) */
    LevelGzipOutputStream(OutputStream out, int level) throws IOException {
        super(out, BUFFER);
        if (level < 1 || level > 9) {
            throw new IllegalArgumentException("gzip level " + level + " is not 1 to 9");
        }
        def.setLevel(level); // before any byte is deflated: the header is written as is
    }
}
