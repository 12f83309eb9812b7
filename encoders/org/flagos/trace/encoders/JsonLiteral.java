package org.flagos.trace.encoders;

/**
 * Decides whether a metadata value's text may be written into JSON as-is. Only the JSON grammar's
 * own literals pass: numbers (sign, integer without leading zeros, optional fraction, optional
 * exponent such as {@code 8e-05}), {@code true}, {@code false}, {@code null}. Everything else is
 * quoted. Erring towards quoting is cosmetic (a number shown as a string); erring the other way
 * makes the whole trace file unparseable, since one bad value breaks the single JSON document.
 */
public final class JsonLiteral {
    public static boolean isLiteral(CharSequence text) {
        int n = text.length();
        if (n == 0) {
            return false;
        }
        if (equals(text, "true") || equals(text, "false") || equals(text, "null")) {
            return true;
        }
        int i = 0;
        if (text.charAt(i) == '-') {
            i++;
        }
        if (i == n) {
            return false;
        }
        if (text.charAt(i) == '0') {
            i++;
        } else if (isDigit1to9(text.charAt(i))) {
            i = digitsEnd(text, i);
        } else {
            return false;
        }
        if (i < n && text.charAt(i) == '.') {
            i = nonEmptyDigitsEnd(text, i + 1);
            if (i < 0) {
                return false;
            }
        }
        if (i < n && (text.charAt(i) == 'e' || text.charAt(i) == 'E')) {
            i++;
            if (i < n && (text.charAt(i) == '+' || text.charAt(i) == '-')) {
                i++;
            }
            i = nonEmptyDigitsEnd(text, i);
            if (i < 0) {
                return false;
            }
        }
        return i == n;
    }

    private static boolean equals(CharSequence a, String b) {
        if (a.length() != b.length()) {
            return false;
        }
        for (int i = 0; i < b.length(); i++) {
            if (a.charAt(i) != b.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** The index after the run of digits that starts at {@code i} (i itself when there is none). */
    private static int digitsEnd(CharSequence text, int i) {
        int n = text.length();
        while (i < n && isDigit(text.charAt(i))) {
            i++;
        }
        return i;
    }

    /** The index after the run of digits that starts at {@code i}, or -1 when there is none. */
    private static int nonEmptyDigitsEnd(CharSequence text, int i) {
        int end = digitsEnd(text, i);
        return end == i ? -1 : end;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isDigit1to9(char c) {
        return c >= '1' && c <= '9';
    }

    private JsonLiteral() {
    }
}
