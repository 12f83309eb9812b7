package org.flagos.trace.ingest;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.GZIPInputStream;

/** Loads a capture file's bytes: memory-mapped, or inflated when the name ends in {@code .gz}. */
public final class CaptureBytes {
    /** Opens {@code path}; failures become one-line {@link CaptureFormatException}s. */
    public static ByteBuffer load(Path path) {
        try {
            if (path.getFileName().toString().endsWith(".gz")) {
                try (InputStream in = new GZIPInputStream(Files.newInputStream(path), 1 << 16)) {
                    return ByteBuffer.wrap(in.readAllBytes()).order(ByteOrder.LITTLE_ENDIAN);
                }
            }
            try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
                return channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size()).order(ByteOrder.LITTLE_ENDIAN);
            }
        } catch (NoSuchFileException e) {
            throw new CaptureFormatException(path + ": no such file");
        } catch (java.util.zip.ZipException | java.io.EOFException e) {
            throw new CaptureFormatException(path + ": not a valid gzip stream (" + e.getMessage() + ")", e);
        } catch (IOException e) {
            throw new CaptureFormatException(path + ": cannot read (" + e + ")", e);
        }
    }

    private CaptureBytes() {
    }
}
