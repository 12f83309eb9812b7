package org.flagos.trace.ingest;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;

/**
 * Cursor over the frames of a {@code .fltrbuf} capture (format v1: magic "FLTRBUF1", then frames of
 * {@code vendor:u32 reserved:u32 length:u64 payload}). Each {@link #next()} exposes one frame's
 * payload as a view bounded by its length. A last frame cut short (its length runs past the end of
 * the file) is still handed out with the bytes that are there, so that a decoder keeps every whole
 * record before the cut; {@link #truncation()} then says how many bytes were lost.
 *
 * <p>Over bytes in memory ({@link #FltrbufFrames(ByteBuffer, String)}) payloads are views of them.
 * Over a file ({@link #open(Path)}; a {@code .gz} one is inflated as it is read) frames are streamed:
 * one frame is in memory at a time, in a buffer reused from frame to frame, so a capture of any
 * length replays, and a payload is valid only until the next call to {@link #next()}.
 */
public final class FltrbufFrames implements Closeable, FrameCursor {
    static final byte[] MAGIC = "FLTRBUF1".getBytes(StandardCharsets.US_ASCII);
    static final int HEADER = 16;
    /**
     * The largest frame a capture may hold (256 MiB): a vendor buffer is a few MiB (CUPTI's are 8 MiB
     * by default), and a declared length must not size memory unchecked. A frame declaring more is
     * refused at its header, before any of its bytes is read, in memory and streamed alike.
     */
    public static final int MAX_STREAMED_FRAME = 1 << 28;

    private final ByteBuffer file;
    private final ReadableByteChannel channel;
    /** Bytes left in the file after the current position, or -1 when unknown (a gzip stream). */
    private long remaining;
    private final String source;
    private long position;
    private final ByteBuffer header = ByteBuffer.allocate(HEADER).order(ByteOrder.LITTLE_ENDIAN);
    private ByteBuffer frame = ByteBuffer.allocate(0).order(ByteOrder.LITTLE_ENDIAN);
    private int vendor;
    private ByteBuffer payload;
    private int index = -1;
    private String truncation;
    private long lostBytes;

    /** Checks the magic; throws a {@link CaptureFormatException} naming {@code source} when wrong. */
    public FltrbufFrames(ByteBuffer file, String source) {
        this.file = file.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        this.channel = null;
        this.source = source;
        if (this.file.remaining() < MAGIC.length) {
            throw tooShort(this.file.remaining());
        }
        for (int i = 0; i < MAGIC.length; i++) {
            if (this.file.get(this.file.position() + i) != MAGIC[i]) {
                throw wrongMagic();
            }
        }
        position = MAGIC.length;
    }

    private FltrbufFrames(ReadableByteChannel channel, long size, String source) throws IOException {
        this.file = null;
        this.channel = new Buffered(channel);
        this.source = source;
        ByteBuffer magic = ByteBuffer.allocate(MAGIC.length);
        int got = readFully(magic);
        if (got < MAGIC.length) {
            throw tooShort(got);
        }
        for (int i = 0; i < MAGIC.length; i++) {
            if (magic.get(i) != MAGIC[i]) {
                throw wrongMagic();
            }
        }
        position = MAGIC.length;
        remaining = size < 0 ? -1 : size - MAGIC.length;
    }

    /**
     * Whether {@code path} is a regular file that begins with a capture's magic, gzipped or not: what a
     * command that reads traces tells apart from a trace, to say "replay it" rather than "not valid JSON".
     * Anything unreadable is not a capture here; the reader that follows says why.
     */
    public static boolean isCapture(Path path) {
        if (!Files.isRegularFile(path)) {
            return false;
        }
        try (InputStream raw = new BufferedInputStream(Files.newInputStream(path), 1 << 12)) {
            raw.mark(2);
            boolean gzip = raw.read() == 0x1f && raw.read() == 0x8b;
            raw.reset();
            InputStream in = gzip ? new GZIPInputStream(raw, 1 << 12) : raw;
            return Arrays.equals(in.readNBytes(MAGIC.length), MAGIC);
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Opens a capture file for streaming; {@code .gz} is inflated as it is read. Failures become
     * one-line {@link CaptureFormatException}s. Close it when done.
     */
    public static FltrbufFrames open(Path path) {
        InputFiles.requireRegular(path, "a capture");
        ReadableByteChannel channel = null;
        try {
            long size;
            if (path.getFileName().toString().endsWith(".gz")) {
                InputStream in = java.nio.file.Files.newInputStream(path);
                try {
                    channel = Channels.newChannel(new GZIPInputStream(in, 1 << 16));
                } catch (IOException e) {
                    in.close();
                    throw e;
                }
                size = -1;
            } else {
                FileChannel file = FileChannel.open(path, StandardOpenOption.READ);
                channel = file;
                size = file.size();
            }
            return new FltrbufFrames(channel, size, path.toString());
        } catch (NoSuchFileException e) {
            throw new CaptureFormatException(path + ": no such file");
        } catch (java.util.zip.ZipException | java.io.EOFException e) {
            closeQuietly(channel);
            throw new CaptureFormatException(path + ": not a valid gzip stream (" + e.getMessage() + ")", e);
        } catch (IOException e) {
            closeQuietly(channel);
            throw new CaptureFormatException(path + ": cannot read (" + InputFiles.reason(e) + ")", e);
        } catch (RuntimeException e) {
            closeQuietly(channel);
            throw e;
        }
    }

    private CaptureFormatException tooShort(int bytes) {
        return new CaptureFormatException(source + ": not a flagtrace capture (" + bytes
                + " bytes, too short for the FLTRBUF1 magic)");
    }

    private CaptureFormatException wrongMagic() {
        return new CaptureFormatException(source + ": not a flagtrace capture (wrong magic; expected FLTRBUF1)");
    }

    /** Advances to the next frame (a cut-short last one included); false at the end or at an unreadable header. */
    @Override
    public boolean next() {
        if (truncation != null) {
            return false;
        }
        return file != null ? nextInMemory() : nextStreamed();
    }

    private boolean nextInMemory() {
        int start = file.position();
        int limit = file.limit();
        int at = start + (int) position;
        if (at == limit) {
            return false;
        }
        if (limit - at < HEADER) {
            truncation = "frame " + (index + 1) + " at byte " + position + " is truncated: " + (limit - at)
                    + " bytes left, a frame header needs " + HEADER;
            return false;
        }
        long length = file.getLong(at + 8);
        if (!checkHeader(file.getInt(at + 4)) || !checkLength(length)) {
            return false;
        }
        long available = limit - at - HEADER;
        long present = length;
        if (length < 0 || length > available) {
            present = available;
            cutShort(length, available);
            if (present == 0) {
                return false;
            }
        }
        ByteBuffer view = file.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        view.limit(at + HEADER + (int) present).position(at + HEADER);
        payload = view;
        vendor = file.getInt(at);
        position += HEADER + present;
        index++;
        return true;
    }

    private boolean nextStreamed() {
        try {
            header.clear();
            int got = readFully(header);
            if (got == 0) {
                return false;
            }
            if (got < HEADER) {
                truncation = "frame " + (index + 1) + " at byte " + position + " is truncated: " + got
                        + " bytes left, a frame header needs " + HEADER;
                return false;
            }
            long length = header.getLong(8);
            if (!checkHeader(header.getInt(4)) || !checkLength(length)) {
                return false;
            }
            if (remaining >= 0) {
                remaining -= HEADER;
            }
            long want = length; // at most MAX_STREAMED_FRAME: checkLength
            if (remaining >= 0) {
                want = Math.min(want, remaining); // a plain file says up front what it can hold
            }
            // Grows only as bytes arrive, so a declared length never sizes memory by itself.
            long present = readPayload((int) want);
            if (present < length) {
                cutShort(length, present);
                if (present == 0) {
                    return false;
                }
            }
            if (remaining >= 0) {
                remaining -= present;
            }
            payload = frame;
            vendor = header.getInt(0);
            position += HEADER + present;
            index++;
            return true;
        } catch (java.util.zip.ZipException | java.io.EOFException e) {
            throw new CaptureFormatException(source + ": not a valid gzip stream (" + e.getMessage() + ")", e);
        } catch (IOException e) {
            throw new CaptureFormatException(source + ": cannot read (" + InputFiles.reason(e) + ")", e);
        }
    }

    /** Reads up to {@code want} payload bytes into the reused frame buffer, growing it as bytes arrive. */
    private long readPayload(int want) throws IOException {
        if (remaining >= 0 && frame.capacity() < want) { // a plain file holds these bytes: one buffer of their size
            // Direct: the file channel reads into it as it is. Into a heap buffer the JDK reads through a
            // temporary direct buffer of the read's size, copied over, and allocated and zeroed again
            // whenever a read is larger than the one it keeps: in a cold 10M-record replay (8 MiB and
            // 29 KiB frames) that zeroing and copy were 13% of the producer thread's CPU samples
            // (async-profiler, benchmarks/results/2026-12-02-vm/walk-fourth.txt).
            frame = ByteBuffer.allocateDirect(want).order(ByteOrder.LITTLE_ENDIAN);
        }
        frame.clear();
        while (frame.position() < want) {
            if (!frame.hasRemaining()) {
                int size = (int) Math.min(want, Math.max(1 << 16, (long) frame.capacity() * 2));
                ByteBuffer bigger = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
                frame.flip();
                bigger.put(frame);
                frame = bigger;
            }
            frame.limit(Math.min(frame.capacity(), want));
            if (channel.read(frame) < 0) {
                break;
            }
        }
        frame.flip();
        return frame.remaining();
    }

    private boolean checkHeader(int reserved) {
        if (reserved != 0) {
            truncation = "frame " + (index + 1) + " at byte " + position + " has reserved=" + reserved
                    + " (must be 0 in format v1): not a v1 frame, rest of file not read";
            return false;
        }
        return true;
    }

    /** A declared length over {@link #MAX_STREAMED_FRAME} (or over 2^63) ends the walk before any byte is read. */
    private boolean checkLength(long length) {
        if (length < 0 || length > MAX_STREAMED_FRAME) {
            truncation = "frame " + (index + 1) + " at byte " + position + " declares " + Long.toUnsignedString(length)
                    + " payload bytes, more than the " + MAX_STREAMED_FRAME + " (256 MiB) a frame may hold: rest of file not read";
            lostBytes = -1;
            return false;
        }
        return true;
    }

    private void cutShort(long length, long available) {
        lostBytes = length < 0 ? -1 : length - available;
        truncation = "frame " + (index + 1) + " at byte " + position + " declares " + Long.toUnsignedString(length)
                + " payload bytes but only " + available + " remain: file cut short"
                + (length < 0 ? "" : ", " + lostBytes + " bytes lost");
    }

    private int readFully(ByteBuffer into) throws IOException {
        int total = 0;
        while (into.hasRemaining()) {
            int n = channel.read(into);
            if (n < 0) {
                break;
            }
            total += n;
        }
        into.flip();
        return total;
    }

    /** The current frame's vendor id (1 = CUPTI, ...). */
    @Override
    public int vendor() {
        return vendor;
    }

    /** The current frame's payload, bounded to its declared length; when streamed, valid until the next {@link #next()}. */
    @Override
    public ByteBuffer payload() {
        return payload;
    }

    /** Zero-based index of the current frame. */
    public int index() {
        return index;
    }

    /** Why the walk stopped early, or null when it reached the end of the file cleanly. */
    @Override
    public String truncation() {
        return truncation;
    }

    /** Payload bytes a cut-short last frame declared but the file does not hold; -1 when its length was impossible. */
    public long lostBytes() {
        return lostBytes;
    }

    /** Frames handed out so far. */
    public int frames() {
        return index + 1;
    }

    public String source() {
        return source;
    }

    /** Bytes of the capture walked so far, magic and frame headers included. */
    @Override
    public long bytesRead() {
        return position;
    }

    /** Closes the file of a streamed capture; nothing to do over bytes in memory. */
    @Override
    public void close() {
        closeQuietly(channel);
    }

    private static void closeQuietly(java.nio.channels.Channel c) {
        if (c != null) {
            try {
                c.close();
            } catch (IOException ignored) {
                // reading is over; a failing close loses nothing
            }
        }
    }

    /**
     * Serves small reads (frame headers) from a 64 KiB buffer and large ones straight from the file:
     * a capture of millions of tiny or empty frames costs one system call per 64 KiB, not per header.
     */
    private static final class Buffered implements ReadableByteChannel {
        private final ReadableByteChannel in;
        private final ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 16); // direct: see readPayload

        Buffered(ReadableByteChannel in) {
            this.in = in;
            buffer.flip();
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            if (buffer.hasRemaining()) {
                int n = Math.min(buffer.remaining(), dst.remaining());
                ByteBuffer slice = buffer.duplicate();
                slice.limit(slice.position() + n);
                dst.put(slice);
                buffer.position(buffer.position() + n);
                return n;
            }
            if (dst.remaining() >= buffer.capacity()) {
                return in.read(dst);
            }
            buffer.clear();
            int n = in.read(buffer);
            buffer.flip();
            return n <= 0 ? n : read(dst);
        }

        @Override
        public boolean isOpen() {
            return in.isOpen();
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
