package org.flagos.trace.vendors.activity;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.IntUnaryOperator;
import org.flagos.trace.model.DecodeStats;

/**
 * The walk over a buffer of records that each start with their kind (a 32-bit int) and whose size
 * follows from that kind: CUPTI's and its family's, MSPTI's. A cursor, reused for every buffer of one
 * decoder (no allocation per buffer or record): {@link #start} takes the buffer, {@link #next} steps to
 * the next whole record. The walk is bounded by the buffer's valid size (its limit), never by a count
 * of records: stray bytes too few for a kind, a kind of unknown size, or a record cut short end it, and
 * the bytes left are counted as undecodable with one line saying why, never guessed at. A record not
 * yet written (kind 0) ends it too, its bytes counted as unwritten.
 *
 * <pre>{@code
 * ByteBuffer buffer = walk.start(source, stats);
 * for (int pos = walk.next(); pos >= 0; pos = walk.next()) {
 *     decodeRecord(walk.kind(), buffer, pos, sink, stats);
 * }
 * }</pre>
 */
public final class RecordWalk {
    /** Kinds 0 to 255 are looked up in the size table (every kind CUPTI and MSPTI define lies below); others are unknown. */
    private static final int KINDS = 256;
    /**
     * Kind 0, every such vendor's invalid kind, where a record should start: one the vendor had not
     * yet written when it handed the buffer over ({@link DecodeStats#unwritten}); the rest is left out.
     */
    private static final int UNWRITTEN = 0;

    private final String vendor;
    private final int[] sizes = new int[KINDS];
    private final String sizeUnknown;
    private ByteBuffer buffer;
    private DecodeStats stats;
    private int base;
    private int limit;
    private int pos;
    /** The kind and size of the record {@link #next} returned last; size 0 before the first. */
    private int kind;
    private int size;

    /**
     * @param vendor      the vendor's name in the lines counted ({@code CUPTI}, {@code MSPTI})
     * @param recordSize  the bytes a record of a kind occupies, or -1 for a kind the vendor's table does
     *                    not know (asked once per kind, here)
     * @param sizeUnknown what follows "its size is unknown" in that line (the layout's name, or nothing)
     */
    public RecordWalk(String vendor, IntUnaryOperator recordSize, String sizeUnknown) {
        this.vendor = vendor;
        this.sizeUnknown = sizeUnknown;
        for (int k = 0; k < KINDS; k++) {
            sizes[k] = recordSize.applyAsInt(k);
        }
    }

    /** {@code source} as a little-endian view (itself when it already is): every vendor's records are. */
    public static ByteBuffer littleEndian(ByteBuffer source) {
        return source.order() == ByteOrder.LITTLE_ENDIAN ? source : source.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Starts a walk over {@code source}'s bytes from its position to its limit; returns the view walked. */
    public ByteBuffer start(ByteBuffer source, DecodeStats stats) {
        this.buffer = littleEndian(source);
        this.stats = stats;
        this.base = buffer.position();
        this.limit = buffer.limit();
        this.pos = base;
        this.kind = 0;
        this.size = 0;
        return buffer;
    }

    /**
     * The offset of the next whole record (its kind in {@link #kind()}), or -1 when the walk ended: at
     * the limit, or (the rest counted as undecodable) on stray bytes, an unknown kind or a cut record.
     */
    public int next() {
        pos += size; // past the record returned last (0 right after start)
        size = 0;
        if (pos >= limit) {
            return -1;
        }
        int left = limit - pos;
        if (left < Integer.BYTES) {
            return end(left, vendor + " buffer ends with " + left + " stray bytes at offset " + (pos - base));
        }
        int k = buffer.getInt(pos);
        if (k == UNWRITTEN && sizes[UNWRITTEN] < 0) {
            stats.unwritten(left);
            pos = limit;
            return -1;
        }
        int s = k >= 0 && k < KINDS ? sizes[k] : -1;
        if (s < 0) {
            return end(left, "unknown " + vendor + " activity kind " + k + " at offset " + (pos - base)
                    + ": its size is unknown" + sizeUnknown + ", rest of buffer (" + left + " bytes) skipped");
        }
        if (left < s) {
            return end(left, vendor + " record of kind " + k + " at offset " + (pos - base)
                    + " needs " + s + " bytes, buffer has " + left);
        }
        kind = k;
        size = s;
        return pos;
    }

    /** Counts the {@code left} bytes as undecodable, for {@code why}, and ends the walk. */
    private int end(int left, String why) {
        stats.undecodable(left, why);
        pos = limit;
        return -1;
    }

    /** The kind of the record {@link #next} returned last. */
    public int kind() {
        return kind;
    }
}
