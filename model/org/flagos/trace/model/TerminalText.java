package org.flagos.trace.model;

/**
 * Makes a name read from a file safe to print on a terminal: the one rule for every table and
 * message that quotes an op, kernel, path or other name from outside (files written, JSON and
 * Parquet, keep names whole). Control characters (C0, DEL, C1) and the Unicode format characters
 * that reorder or hide text (bidirectional overrides, zero-width marks) are written as visible
 * escapes: {@code \x1b}, {@code \r}, {@code \n}, {@code \t}, {@code \u202e}; a backslash that
 * would read as the start of such an escape is doubled. An escape sequence then cannot retitle,
 * clear or recolour the terminal, and a line break in a name cannot break a table's lines.
 */
public final class TerminalText {
    private TerminalText() {
    }

    /** {@code text} with its control characters escaped visibly; the same string when it has none; "null" for null. */
    public static String safe(String text) {
        if (text == null) {
            return "null";
        }
        int i = 0;
        while (i < text.length() && !needsEscape(text, i)) {
            i++;
        }
        if (i == text.length()) {
            return text;
        }
        StringBuilder b = new StringBuilder(text.length() + 16).append(text, 0, i);
        for (; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!needsEscape(text, i)) {
                b.append(c);
            } else if (c == '\\') {
                b.append("\\\\");
            } else if (c == '\n') {
                b.append("\\n");
            } else if (c == '\r') {
                b.append("\\r");
            } else if (c == '\t') {
                b.append("\\t");
            } else if (c < 0x80) {
                b.append(String.format("\\x%02x", (int) c));
            } else {
                b.append(String.format("\\u%04x", (int) c));
            }
        }
        return b.toString();
    }

    private static boolean needsEscape(String text, int i) {
        char c = text.charAt(i);
        if (c == '\\') { // only where it would be read as one of the escapes this writes
            if (i + 1 >= text.length()) {
                return false;
            }
            char n = text.charAt(i + 1);
            return n == 'x' || n == 'u' || n == 'n' || n == 'r' || n == 't' || n == '\\';
        }
        return c < 0x20 || (c >= 0x7f && c <= 0x9f) || format(c);
    }

    /** Unicode format characters that reorder or hide text: bidi embeddings, overrides and isolates, zero-width marks. */
    private static boolean format(char c) {
        return (c >= 0x200b && c <= 0x200f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)
                || c == 0x061c || c == 0xfeff;
    }
}
