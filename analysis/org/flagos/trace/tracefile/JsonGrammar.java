package org.flagos.trace.tracefile;

/**
 * The byte-level checks of JSON that the fast paths over a trace's bytes share (merge's event scan, the summary's
 * scan): a number of the strict grammar, a literal, and one character of a string that is not printable ASCII. Each reads
 * {@code b[k, lim)} only and answers a position or a code, never throws: {@link #UNUSUAL} where the bytes are not of
 * the common form the fast paths take (the reader must judge them), {@link #MORE} where they go on past {@code lim}.
 * Each scanner declines in its own way on a code.
 */
public final class JsonGrammar {
    /** The bytes are not of the common form. */
    public static final int UNUSUAL = -1;
    /** The bytes go on past the limit. */
    public static final int MORE = -2;
    /** Characters of a number the fast paths take. */
    public static final int MAX_NUMBER = 60;
    /** In {@link #number}'s answer: the number has a point. */
    public static final long POINT = 1L << 32;
    /** In {@link #number}'s answer: the number has an exponent. */
    public static final long EXPONENT = 1L << 33;

    private JsonGrammar() {
    }

    /**
     * The JSON number at {@code b[k]} (strict grammar, at most {@link #MAX_NUMBER} characters): its end, with
     * {@link #POINT} and {@link #EXPONENT} set where it has them ({@link #end} takes the end back); else {@link #UNUSUAL}
     * or {@link #MORE}. The byte after it is the caller's to judge.
     */
    public static long number(byte[] b, int k, int lim) {
        int from = k;
        if (k >= lim) {
            return MORE;
        }
        if (b[k] == '-') {
            k++;
        }
        if (k >= lim) {
            return MORE;
        }
        byte c = b[k];
        if (c == '0') {
            k++;
        } else if (c >= '1' && c <= '9') {
            k = digits(b, k, lim);
            if (k < 0) {
                return k;
            }
        } else {
            return UNUSUAL;
        }
        long flags = 0;
        if (k >= lim) {
            return MORE;
        }
        if (b[k] == '.') {
            flags = POINT;
            k = digits(b, k + 1, lim);
            if (k < 0) {
                return k;
            }
        }
        c = b[k];
        if (c == 'e' || c == 'E') {
            flags |= EXPONENT;
            k++;
            if (k < lim && (b[k] == '+' || b[k] == '-')) {
                k++;
            }
            k = digits(b, k, lim);
            if (k < 0) {
                return k;
            }
        }
        if (k - from > MAX_NUMBER) {
            return UNUSUAL;
        }
        return k | flags;
    }

    /** The end of a number in {@link #number}'s answer (not a code). */
    public static int end(long number) {
        return (int) number;
    }

    /** Whether the number in {@link #number}'s answer (not a code) is an integer: no point, no exponent. */
    public static boolean integral(long number) {
        return (number & (POINT | EXPONENT)) == 0;
    }

    /**
     * The end of a digit at {@code k} and the digits after it (a number's whole part, fraction or exponent); else
     * {@link #UNUSUAL} (no digit at {@code k}) or {@link #MORE} (they reach {@code lim}).
     */
    private static int digits(byte[] b, int k, int lim) {
        if (k >= lim) {
            return MORE;
        }
        if (!digit(b[k])) {
            return UNUSUAL;
        }
        while (true) {
            k++;
            if (k >= lim) {
                return MORE;
            }
            if (!digit(b[k])) {
                return k;
            }
        }
    }

    private static boolean digit(byte c) {
        return c >= '0' && c <= '9';
    }

    /**
     * The end of the literal at {@code b[k]}: {@code true}, {@code false} or {@code null} by its first byte; else
     * {@link #UNUSUAL} or {@link #MORE}, at the first byte that says so.
     */
    public static int literal(byte[] b, int k, int lim) {
        if (k >= lim) {
            return MORE;
        }
        byte c = b[k];
        String word = c == 't' ? "true" : c == 'f' ? "false" : c == 'n' ? "null" : null;
        if (word == null) {
            return UNUSUAL;
        }
        for (int q = 1; q < word.length(); q++) {
            if (k + q >= lim) {
                return MORE;
            }
            if (b[k + q] != word.charAt(q)) {
                return UNUSUAL;
            }
        }
        return k + word.length();
    }

    /**
     * The offset past the character at {@code b[k]} inside a string, where it is not its closing quote: printable ASCII,
     * UTF-8 of two or three bytes (no overlong form, no surrogate), or an escape: {@code \" \\ \b \t \n \f \r}, and
     * with {@code everyEscape} a slash or {@code u} and four hex digits after the backslash too. Else {@link #UNUSUAL}
     * (a control, four bytes of UTF-8, no UTF-8, another escape) or {@link #MORE}.
     */
    public static int character(byte[] b, int k, int lim, boolean everyEscape) {
        if (k >= lim) {
            return MORE;
        }
        int c = b[k] & 0xff;
        if (c == '\\') {
            if (k + 1 >= lim) {
                return MORE;
            }
            byte e = b[k + 1];
            if (e == '"' || e == '\\' || e == 'b' || e == 't' || e == 'n' || e == 'f' || e == 'r' || (everyEscape && e == '/')) {
                return k + 2;
            }
            if (everyEscape && e == 'u') {
                for (int d = k + 2; d < k + 6; d++) {
                    if (d >= lim) {
                        return MORE;
                    }
                    if (Character.digit(b[d], 16) < 0) {
                        return UNUSUAL;
                    }
                }
                return k + 6;
            }
            return UNUSUAL;
        }
        if (c >= 0x20 && c < 0x80) {
            return c == '"' ? UNUSUAL : k + 1;
        }
        if (c >= 0xC2 && c <= 0xDF) {
            if (k + 1 >= lim) {
                return MORE;
            }
            return continuation(b[k + 1]) ? k + 2 : UNUSUAL;
        }
        if (c >= 0xE0 && c <= 0xEF) {
            if (k + 1 >= lim) {
                return MORE;
            }
            int c1 = b[k + 1] & 0xff;
            if (!continuation(b[k + 1])) {
                return UNUSUAL;
            }
            if (k + 2 >= lim) {
                return MORE;
            }
            if (!continuation(b[k + 2]) || (c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 >= 0xA0)) {
                return UNUSUAL;
            }
            return k + 3;
        }
        return UNUSUAL;
    }

    private static boolean continuation(byte c) {
        return (c & 0xC0) == 0x80;
    }
}
