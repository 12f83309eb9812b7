package org.flagos.trace.tracefile;

import com.fasterxml.jackson.core.JsonParser;
import java.io.IOException;

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
        if (s != null && s.length() == length && s.hashCode() == h && same(s, cs, from)) {
            return s;
        }
        s = new String(cs, from, length);
        slots[slot] = s;
        return s;
    }

    private static boolean same(String s, char[] cs, int from) {
        for (int i = 0, n = s.length(); i < n; i++) {
            if (s.charAt(i) != cs[from + i]) {
                return false;
            }
        }
        return true;
    }
}
