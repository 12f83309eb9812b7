package org.flagos.trace.tracefile;

import java.math.BigDecimal;
import java.math.RoundingMode;

/** Chrome-trace times (microseconds, as decimal text) to whole nanoseconds, exactly. */
public final class Micros {
    /** Digits a long holds with room to spare after scaling by 1,000. */
    private static final int FAST_DIGITS = 15;

    /** {@code text} microseconds in nanoseconds; throws NumberFormatException or ArithmeticException (beyond a long), quickly whatever the exponent. */
    public static long toNanos(String text) {
        int n = text.length();
        int i = 0;
        boolean negative = false;
        if (i < n && (text.charAt(i) == '-' || text.charAt(i) == '+')) {
            negative = text.charAt(i) == '-';
            i++;
        }
        long whole = 0;
        int digits = 0;
        while (i < n && Character.isDigit(text.charAt(i))) {
            whole = whole * 10 + (text.charAt(i++) - '0');
            digits++;
        }
        long fraction = 0;
        int fractionDigits = 0;
        if (i < n && text.charAt(i) == '.') {
            i++;
            while (i < n && Character.isDigit(text.charAt(i)) && fractionDigits < 3) {
                fraction = fraction * 10 + (text.charAt(i++) - '0');
                fractionDigits++;
            }
        }
        if (i != n || digits == 0 || digits > FAST_DIGITS) {
            // exponents, sub-nanosecond digits, huge values: the slow exact path
            // bounded before it is scaled: 1e999999999 would otherwise be written out digit by digit
            BigDecimal d = new BigDecimal(text).movePointRight(3);
            long magnitude = (long) d.precision() - d.scale(); // digits before the point
            if (magnitude > 19) {
                throw new ArithmeticException("beyond a long");
            }
            if (magnitude < -1) {
                return 0; // below a hundredth of a nanosecond
            }
            return d.setScale(0, RoundingMode.HALF_EVEN).longValueExact();
        }
        for (int k = fractionDigits; k < 3; k++) {
            fraction *= 10;
        }
        long ns = whole * 1000 + fraction;
        return negative ? -ns : ns;
    }

    private Micros() {
    }
}
