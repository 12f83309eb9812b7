package org.flagos.trace.tracefile;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * The bytes the JSON parser reads, kept from a mark on, so that a reader that copies events ({@code merge})
 * can take an event's bytes as they are in the file instead of its tokens. Bounded: it never holds more than
 * {@link #CAP} bytes (one event at most {@link TraceLimits#MAX_EVENT_BYTES}, plus what the parser reads ahead);
 * past that the oldest bytes go, and an event whose first byte went is past the event cap anyway.
 */
final class RawWindow extends FilterInputStream {
    /** The most it holds. */
    static final int CAP = (int) TraceLimits.MAX_EVENT_BYTES + (1 << 20);
    /** No mark: only the last {@link #RETAIN} bytes are kept. */
    static final long NONE = Long.MAX_VALUE;
    /** Bytes always kept, whatever the mark: more than the parser reads at once, so that a mark set at a byte it has read holds. */
    static final int RETAIN = 1 << 16;

    byte[] buf = new byte[1 << 18];
    /** The offset in the stream of {@code buf[0]}. */
    long base;
    int len;
    private long keepFrom = NONE;

    RawWindow(InputStream in) {
        super(in);
    }

    /** Keeps the bytes from stream offset {@code offset} on ({@link #NONE}: none). */
    void keepFrom(long offset) {
        keepFrom = offset;
    }

    /** Whether the bytes from {@code from} to {@code to} (stream offsets) are held. */
    boolean holds(long from, long to) {
        return from >= base && to <= base + len;
    }

    @Override
    public int read() throws IOException {
        int b = in.read();
        if (b >= 0) {
            append(new byte[] {(byte) b}, 0, 1);
        }
        return b;
    }

    @Override
    public int read(byte[] b, int off, int n) throws IOException {
        int got = in.read(b, off, n);
        if (got > 0) {
            append(b, off, got);
        }
        return got;
    }

    @Override
    public long skip(long n) throws IOException {
        byte[] scratch = new byte[(int) Math.min(n, 8192)];
        int got = read(scratch, 0, scratch.length);
        return Math.max(got, 0);
    }

    @Override
    public boolean markSupported() {
        return false;
    }

    private void append(byte[] b, int off, int n) {
        long end = base + len + n;
        long want = Math.max(Math.min(keepFrom, end - RETAIN), end - CAP); // the mark, and what the parser read ahead of it
        want = Math.max(want, base);
        int need = (int) (end - want);
        if (need > buf.length) {
            byte[] grown = new byte[(int) Math.min(CAP, Math.max(2L * buf.length, need))];
            int drop = (int) Math.min(want - base, len);
            System.arraycopy(buf, drop, grown, 0, len - drop);
            base += drop;
            len -= drop;
            buf = grown;
        }
        if (want >= base + len) { // none of the held bytes is wanted, nor the first of these
            int skip = (int) (want - (base + len));
            off += skip;
            n -= skip;
            base = want;
            len = 0;
        } else if (len + n > buf.length) {
            int drop = (int) (want - base);
            System.arraycopy(buf, drop, buf, 0, len - drop);
            base = want;
            len -= drop;
        }
        System.arraycopy(b, off, buf, len, n);
        len += n;
    }
}
