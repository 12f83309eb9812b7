package org.flagos.trace.tracefile;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The text of UTF-8 bytes (a JSON string's, checked and without escapes, or a number's) as one string per text
 * seen lately: a reader that takes a trace's fields straight from its bytes makes no string per event for the
 * names, categories, phases and pids a trace repeats millions of times. A slot per hash of the bytes, the newest
 * text in it; a text of more than {@link #MAX_BYTES} is made afresh. A text is known by its length and its first and
 * last eight bytes, read eight at a time (and, past sixteen bytes, by all of them). Not shared between threads.
 */
public final class ByteTexts {
    static final int SLOTS = 4096;
    static final int MAX_BYTES = 1024;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final int[] lengths = new int[SLOTS];
    private final long[] firsts = new long[SLOTS];
    private final long[] lasts = new long[SLOTS];
    private final byte[][] keys = new byte[SLOTS][];
    private final String[] values = new String[SLOTS];

    /** The text of {@code b[from, to)}, well-formed UTF-8. */
    public String text(byte[] b, int from, int to) {
        int n = to - from;
        if (n > MAX_BYTES) {
            return new String(b, from, n, StandardCharsets.UTF_8);
        }
        long first;
        if (from + 8 <= b.length) {
            first = (long) LONGS.get(b, from) & (n >= 8 ? -1L : (1L << (8 * n)) - 1);
        } else { // at the array's end: its bytes one by one
            first = 0;
            for (int k = Math.min(to, from + 8) - 1; k >= from; k--) {
                first = first << 8 | (b[k] & 0xff);
            }
        }
        long last = n > 8 ? (long) LONGS.get(b, to - 8) : 0;
        long mixed = (first ^ Long.rotateLeft(last, 29) ^ n) * 0x9E3779B97F4A7C15L;
        int slot = (int) (mixed >>> 52); // SLOTS = 2^12
        String s = values[slot];
        if (s != null && lengths[slot] == n && firsts[slot] == first && lasts[slot] == last
                && (n <= 16 || Arrays.equals(keys[slot], 0, n, b, from, to))) {
            return s;
        }
        s = new String(b, from, n, StandardCharsets.UTF_8);
        lengths[slot] = n;
        firsts[slot] = first;
        lasts[slot] = last;
        keys[slot] = n <= 16 ? null : Arrays.copyOfRange(b, from, to);
        values[slot] = s;
        return s;
    }
}
