package org.flagos.trace.tracefile;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The text of UTF-8 bytes (a JSON string's, checked and without escapes, or a number's) as one string per text
 * seen lately: a reader that takes a trace's fields straight from its bytes makes no string per event for the
 * names, categories, phases and pids a trace repeats millions of times. A slot per hash of the bytes, the newest
 * text in it; a text of more than {@link #MAX_BYTES} is made afresh. Not shared between threads.
 */
public final class ByteTexts {
    static final int SLOTS = 4096;
    static final int MAX_BYTES = 1024;

    private final byte[][] keys = new byte[SLOTS][];
    private final String[] values = new String[SLOTS];

    /** The text of {@code b[from, to)}, well-formed UTF-8. */
    public String text(byte[] b, int from, int to) {
        if (to - from > MAX_BYTES) {
            return new String(b, from, to - from, StandardCharsets.UTF_8);
        }
        int h = 0;
        for (int k = from; k < to; k++) {
            h = 31 * h + b[k];
        }
        int slot = (h ^ (h >>> 12)) & (SLOTS - 1);
        byte[] key = keys[slot];
        if (key != null && Arrays.equals(key, 0, key.length, b, from, to)) {
            return values[slot];
        }
        String s = new String(b, from, to - from, StandardCharsets.UTF_8);
        keys[slot] = Arrays.copyOfRange(b, from, to);
        values[slot] = s;
        return s;
    }
}
