package org.flagos.trace.tracefile;

import com.fasterxml.jackson.core.JsonParser;
import java.io.IOException;
import java.util.Arrays;

/**
 * The text of a string or number token as one string per text seen lately: a trace repeats its names, categories,
 * phases and pids millions of times, and the parser would make a new string of each (and its reader hash it again
 * in every map). A slot per hash of the characters, the newest text in it; a text of more than {@link #MAX_CHARS}
 * is made afresh. Not shared between threads.
 */
final class TextCache {
    static final int SLOTS = 4096;
    static final int MAX_CHARS = 1024;

    private final String[] slots = new String[SLOTS];
    /** Each slot's text as characters, compared with the parser's by {@link Arrays#equals} (vectorised; a String's charAt is not). */
    private final char[][] chars = new char[SLOTS][];

    /** The current token's text, as {@link JsonParser#getText()} gives it. */
    String text(JsonParser p) throws IOException {
        char[] cs = p.getTextCharacters();
        int from = p.getTextOffset();
        int length = p.getTextLength();
        if (cs == null || length > MAX_CHARS) {
            return p.getText();
        }
        int h = 0;
        for (int i = from, end = from + length; i < end; i++) {
            h = 31 * h + cs[i];
        }
        int slot = (h ^ (h >>> 12)) & (SLOTS - 1);
        String s = slots[slot];
        if (s != null && s.length() == length && s.hashCode() == h
                && Arrays.equals(chars[slot], 0, length, cs, from, from + length)) {
            return s;
        }
        s = new String(cs, from, length);
        slots[slot] = s;
        chars[slot] = Arrays.copyOfRange(cs, from, from + length);
        return s;
    }
}
