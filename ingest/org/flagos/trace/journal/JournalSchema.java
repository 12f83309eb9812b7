package org.flagos.trace.journal;

/**
 * The journal's schema (docs/formats.md, "Journal"): one Chronicle Queue directory, one Chronicle
 * Wire document per fact, each {@code TYPE: {seq, ...}} with a journal-wide sequence number.
 * Version 2: version 1 and {@code mark} documents (a build of version 1 refuses a version 2 journal by its number).
 */
public final class JournalSchema {
    /** The schema this build writes and the newest it reads. */
    public static final int VERSION = 2;
    /** The payload layout of a {@code buffer} document: a vendor buffer exactly as handed over (as in {@code .fltrbuf} v1). */
    public static final int LAYOUT_RAW_V1 = 1;
    /** The most bytes of a vendor buffer one {@code buffer} document may hold (what a reader accepts). */
    public static final int CHUNK_BYTES = 4 << 20;
    /**
     * Bytes of a vendor buffer per {@code buffer} document this build writes; larger buffers are
     * split into parts. Smaller than {@link #CHUNK_BYTES} so that a document fits the overlap of
     * Chronicle's mapped blocks ({@link #BLOCK_BYTES} / 4).
     */
    public static final int WRITE_CHUNK_BYTES = 256 << 10;
    /**
     * Chronicle's mapped block size for the journals this build writes. A cycle file is created
     * with the size of one block and its overlap (5/4 of this), zeros that the file system keeps
     * sparse; Chronicle's default block (64 MiB) made every cycle 80 MiB in apparent size, however
     * little it held. A document must fit in a quarter of a block.
     */
    public static final long BLOCK_BYTES = 2L << 20;
    /** The largest vendor buffer a reader reassembles; a larger declared length is refused as damage. */
    public static final int MAX_BUFFER_BYTES = 256 << 20;
    /** A start or end time the session did not have (a replayed capture without host ops). */
    public static final long NO_TIME = Long.MIN_VALUE;

    static final String SESSION = "session";
    static final String DEVICE = "device";
    static final String CLOCK = "clock";
    static final String NAME = "name";
    static final String OP = "op";
    static final String BUFFER = "buffer";
    static final String STOP = "stop";
    /** A mark a program put on one of its threads ({@code nvtxMarkA}, {@code mstxMarkA}); since version 2. */
    static final String MARK = "mark";
    /** A clock anchor taken after the session started (its stop anchor); the start one is in the session's metadata. */
    static final String ANCHOR = "anchor";
    /** The most anchor documents a reader keeps; more are counted as damage-free extras and left out. */
    static final int MAX_ANCHORS = 16;

    private JournalSchema() {
    }
}
