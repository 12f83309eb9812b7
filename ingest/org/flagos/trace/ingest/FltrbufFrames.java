package org.flagos.trace.ingest;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Cursor over the frames of a {@code .fltrbuf} capture (format v1: magic "FLTRBUF1", then frames of
 * {@code vendor:u32 reserved:u32 length:u64 payload}). Each {@link #next()} exposes one frame's
 * payload as a view bounded by its length. A last frame cut short (its length runs past the end of
 * the file) is still handed out with the bytes that are there, so that a decoder keeps every whole
 * record before the cut; {@link #truncation()} then says how many bytes were lost.
 */
public final class FltrbufFrames {
    static final byte[] MAGIC = "FLTRBUF1".getBytes(StandardCharsets.US_ASCII);
    static final int HEADER = 16;

    private final ByteBuffer file;
    private final String source;
    private int position;
    private int vendor;
    private ByteBuffer payload;
    private int index = -1;
    private String truncation;
    private long lostBytes;

    /** Checks the magic; throws a {@link CaptureFormatException} naming {@code source} when wrong. */
    public FltrbufFrames(ByteBuffer file, String source) {
        this.file = file.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        this.source = source;
        if (this.file.remaining() < MAGIC.length) {
            throw new CaptureFormatException(source + ": not a flagtrace capture (" + this.file.remaining()
                    + " bytes, too short for the FLTRBUF1 magic)");
        }
        for (int i = 0; i < MAGIC.length; i++) {
            if (this.file.get(this.file.position() + i) != MAGIC[i]) {
                throw new CaptureFormatException(source + ": not a flagtrace capture (wrong magic; expected FLTRBUF1)");
            }
        }
        position = this.file.position() + MAGIC.length;
    }

    /** Advances to the next frame (a cut-short last one included); false at the end or at an unreadable header. */
    public boolean next() {
        int limit = file.limit();
        if (position == limit || truncation != null) {
            return false;
        }
        int at = position - file.position();
        if (limit - position < HEADER) {
            truncation = "frame " + (index + 1) + " at byte " + at + " is truncated: " + (limit - position)
                    + " bytes left, a frame header needs " + HEADER;
            return false;
        }
        int vendorId = file.getInt(position);
        int reserved = file.getInt(position + 4);
        long length = file.getLong(position + 8);
        if (reserved != 0) {
            truncation = "frame " + (index + 1) + " at byte " + at + " has reserved=" + reserved
                    + " (must be 0 in format v1): not a v1 frame, rest of file not read";
            return false;
        }
        long available = limit - position - HEADER;
        long present = length;
        if (length < 0 || length > available) {
            present = available;
            lostBytes = length < 0 ? -1 : length - available;
            truncation = "frame " + (index + 1) + " at byte " + at + " declares " + Long.toUnsignedString(length)
                    + " payload bytes but only " + available + " remain: file cut short"
                    + (length < 0 ? "" : ", " + lostBytes + " bytes lost");
            if (present == 0) {
                return false;
            }
        }
        ByteBuffer view = file.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        view.limit(position + HEADER + (int) present).position(position + HEADER);
        payload = view;
        vendor = vendorId;
        position += HEADER + (int) present;
        index++;
        return true;
    }

    /** The current frame's vendor id (1 = CUPTI, ...). */
    public int vendor() {
        return vendor;
    }

    /** The current frame's payload, bounded to its declared length. */
    public ByteBuffer payload() {
        return payload;
    }

    /** Zero-based index of the current frame. */
    public int index() {
        return index;
    }

    /** Why the walk stopped early, or null when it reached the end of the file cleanly. */
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
}
