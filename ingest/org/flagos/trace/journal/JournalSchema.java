package org.flagos.trace.journal;

/**
 * The journal's schema (docs/formats.md, "Journal"): one Chronicle Queue directory, one Chronicle
 * Wire document per fact, each {@code TYPE: {seq, ...}} with a journal-wide sequence number.
 * Version 1.
 */
public final class JournalSchema {
    /** The schema this build writes and the newest it reads. */
    public static final int VERSION = 1;
    /** The payload layout of a {@code buffer} document: a vendor buffer exactly as handed over (as in {@code .fltrbuf} v1). */
    public static final int LAYOUT_RAW_V1 = 1;
    /** Bytes of a vendor buffer per {@code buffer} document; larger buffers are split into parts. */
    public static final int CHUNK_BYTES = 4 << 20;
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

    private JournalSchema() {
    }
}
