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

/**
 * Loads a whole capture file's bytes into one memory-mapped buffer (at most 2 GiB), for callers
 * that want the bytes at once; a replay streams its capture instead ({@link FltrbufFrames#open}). A {@code .gz} capture is inflated into a temporary
 * file first (deleted at once, mapped while open), never into the heap: a compressed capture of a
 * few hundred MB inflates to gigabytes.
 */
public final class CaptureBytes {
    /** Opens {@code path}; failures become one-line {@link CaptureFormatException}s. */
    public static ByteBuffer load(Path path) {
        InputFiles.requireRegular(path, "a capture");
        try {
            if (path.getFileName().toString().endsWith(".gz")) {
                return inflated(path);
            }
            try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
                return map(channel, path);
            }
        } catch (NoSuchFileException e) {
            throw new CaptureFormatException(path + ": no such file");
        } catch (java.util.zip.ZipException | java.io.EOFException e) {
            throw new CaptureFormatException(path + ": not a valid gzip stream (" + e.getMessage() + ")", e);
        } catch (IOException e) {
            throw new CaptureFormatException(path + ": cannot read (" + InputFiles.reason(e) + ")", e);
        }
    }

    private static ByteBuffer map(FileChannel channel, Path path) throws IOException {
        if (channel.size() > Integer.MAX_VALUE) {
            throw new CaptureFormatException(path + ": " + channel.size() + " bytes (inflated); captures over 2 GiB"
                    + " are not supported yet: split the capture");
        }
        return channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size()).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static ByteBuffer inflated(Path path) throws IOException {
        Path temporary = Files.createTempFile("flagtrace-inflated-", ".fltrbuf");
        try {
            try (InputStream in = new GZIPInputStream(Files.newInputStream(path), 1 << 16)) {
                Files.copy(in, temporary, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.READ)) {
                return map(channel, path);
            }
        } finally {
            Files.deleteIfExists(temporary); // the mapping keeps the bytes until it is collected
        }
    }

    private CaptureBytes() {
    }
}
