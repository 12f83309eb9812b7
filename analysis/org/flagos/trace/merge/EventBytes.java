package org.flagos.trace.merge;

import org.flagos.trace.tracefile.TraceEvent;

/**
 * One event's JSON bytes as the merge writes them: white space outside strings left out, and the values a merge
 * rewrites (top-level {@code pid}, {@code ts} and {@code id}; {@code args.correlation} and {@code args["External id"]}, 2021's
 * {@code args["external id"]} too, the args' own fields wherever they sit among them; an id as a number, or as a
 * string the reader reads as one, {@code "5"}; any string as a top-level {@code id})
 * cut out as holes for {@link InputCopy} to fill once the input's slot and clock offset are known. What is left is
 * written as it was read, which is what the JSON writer would write of those tokens only when every string holds
 * ASCII or UTF-8 of one to three bytes (no surrogate) and only the escapes the writer uses ({@code \"}, {@code \\},
 * {@code \b \t \n \f \r}, {@code \\}{@code u00XX} in upper case for other control characters); {@link #scan} says when it
 * is not, and the caller writes the event's tokens through the writer first and scans that.
 */
final class EventBytes {
    static final byte PID = 1;
    static final byte TS = 2;
    static final byte ID_INT = 3;
    /** A top-level {@code id} string that no reader reads as a number: it becomes {@code "slot:text"}. */
    static final byte ID_STRING = 4;
    /** An id written as a string holding a whole number, as the reader reads it ({@link TraceEvent#wholeNumber}): renumbered, kept a string. */
    static final byte ID_NUMBER_STRING = 5;

    private static final int TOP_OTHER = 0;
    private static final int TOP_PID = 1;
    private static final int TOP_TS = 2;
    private static final int TOP_ID = 3;
    private static final int TOP_ARGS = 4;

    /** The event's bytes without its holes. */
    byte[] text = new byte[1 << 12];
    int size;
    /** Per hole: its kind, where it goes in {@link #text}, and the value's bytes as read (in {@link #values}). */
    byte[] kinds = new byte[8];
    int[] at = new int[8];
    int[] valueFrom = new int[8];
    int[] valueTo = new int[8];
    int holes;
    byte[] values = new byte[256];
    int valuesSize;

    /**
     * Scans {@code b[from, to)}, one event object checked by the trace reader. Returns false, leaving nothing
     * defined, when its bytes are not what the writer would write ({@code trusted}: they are the writer's own).
     *
     * @param pidRow whether its {@code pid} is one the merge renumbers (the reader took it)
     * @param hasTs  whether its {@code ts} is a time the merge moves
     */
    boolean scan(byte[] b, int from, int to, boolean trusted, boolean pidRow, boolean hasTs) {
        size = 0;
        holes = 0;
        valuesSize = 0;
        ensure(to - from);
        byte[] out = text;
        int o = 0;
        int depth = 0;
        long objects = 0; // bit d: the container at depth d is an object
        boolean key = false;
        int top = TOP_OTHER;
        boolean inArgs = false; // inside the event's args object (at any depth: its own fields are those at depth 2)
        boolean argId = false;
        boolean afterColon = false;
        int i = from;
        while (i < to) {
            int c = b[i];
            switch (c) {
                case ' ', '\t', '\n', '\r' -> i++;
                case '{', '[' -> {
                    depth++;
                    if (c == '{') {
                        objects |= 1L << depth;
                        key = true;
                        if (depth == 2) { // the object that opens at depth 2 is the event's args, or another top-level field's
                            inArgs = top == TOP_ARGS && afterColon;
                        }
                    } else {
                        objects &= ~(1L << depth);
                        key = false;
                    }
                    afterColon = false;
                    out[o++] = (byte) c;
                    i++;
                }
                case '}', ']' -> {
                    depth--;
                    if (depth < 2) {
                        inArgs = false;
                    }
                    afterColon = false;
                    out[o++] = (byte) c;
                    i++;
                }
                case ':' -> {
                    key = false;
                    afterColon = true;
                    out[o++] = ':';
                    i++;
                }
                case ',' -> {
                    key = (objects & (1L << depth)) != 0;
                    afterColon = false;
                    out[o++] = ',';
                    i++;
                }
                case '"' -> {
                    int end = stringEnd(b, i, to, trusted);
                    if (end < 0) {
                        return false;
                    }
                    if (key) {
                        if (depth == 1) {
                            top = is(b, i, end, "pid") ? TOP_PID : is(b, i, end, "ts") ? TOP_TS : is(b, i, end, "id") ? TOP_ID
                                    : is(b, i, end, "args") ? TOP_ARGS : TOP_OTHER;
                        } else if (depth == 2 && inArgs) {
                            // the reader's id fields of args (TraceReader): External id (2021: external id), correlation
                            argId = is(b, i, end, TraceEvent.CORRELATION) || is(b, i, end, TraceEvent.EXTERNAL_ID)
                                    || is(b, i, end, TraceEvent.EXTERNAL_ID_2021);
                        }
                    } else if (depth == 1 && top == TOP_PID && pidRow) {
                        hole(PID, o, b, i + 1, end - 1);
                        i = end;
                        afterColon = false;
                        continue;
                    } else if (depth == 1 && top == TOP_ID) {
                        hole(numberString(b, i + 1, end - 1) ? ID_NUMBER_STRING : ID_STRING, o, b, i + 1, end - 1);
                        i = end;
                        afterColon = false;
                        continue;
                    } else if (depth == 2 && inArgs && argId && numberString(b, i + 1, end - 1)) {
                        hole(ID_NUMBER_STRING, o, b, i + 1, end - 1);
                        i = end;
                        afterColon = false;
                        continue;
                    }
                    System.arraycopy(b, i, out, o, end - i);
                    o += end - i;
                    i = end;
                    afterColon = false;
                }
                default -> { // a number, true, false or null: as written
                    int end = i + 1;
                    while (end < to && !delimiter(b[end])) {
                        end++;
                    }
                    if (depth == 1 && top == TOP_PID && pidRow) {
                        hole(PID, o, b, i, end);
                    } else if (depth == 1 && top == TOP_TS && hasTs) {
                        hole(TS, o, b, i, end);
                    } else if (depth == 1 && top == TOP_ID && integer(b, i, end)) {
                        hole(ID_INT, o, b, i, end);
                    } else if (depth == 2 && inArgs && argId && integer(b, i, end)) {
                        hole(ID_INT, o, b, i, end);
                    } else {
                        System.arraycopy(b, i, out, o, end - i);
                        o += end - i;
                    }
                    i = end;
                    afterColon = false;
                }
            }
        }
        size = o;
        return true;
    }

    /** Empties it for an event of at most {@code n} bytes. */
    void reset(int n) {
        size = 0;
        holes = 0;
        valuesSize = 0;
        ensure(n);
    }

    private void ensure(int n) {
        if (text.length < n) {
            text = new byte[Math.max(n, text.length * 2)];
        }
    }

    void hole(byte kind, int o, byte[] b, int from, int to) {
        room();
        int n = to - from;
        if (valuesSize + n > values.length) {
            values = java.util.Arrays.copyOf(values, Math.max(values.length * 2, valuesSize + n));
        }
        System.arraycopy(b, from, values, valuesSize, n);
        kinds[holes] = kind;
        at[holes] = o;
        valueFrom[holes] = valuesSize;
        valueTo[holes] = valuesSize + n;
        valuesSize += n;
        holes++;
    }

    /** A hole of {@code kind} whose place and value are not kept: the caller keeps where it is ({@link EventScan#spans}). */
    void span(byte kind) {
        room();
        kinds[holes++] = kind;
    }

    /** Room for one more hole. */
    private void room() {
        if (holes == kinds.length) {
            kinds = java.util.Arrays.copyOf(kinds, holes * 2);
            at = java.util.Arrays.copyOf(at, holes * 2);
            valueFrom = java.util.Arrays.copyOf(valueFrom, holes * 2);
            valueTo = java.util.Arrays.copyOf(valueTo, holes * 2);
        }
    }

    private static boolean delimiter(byte c) {
        return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
    }

    /** Whether a number's text is an integer's (the reader's VALUE_NUMBER_INT): no fraction, no exponent. */
    private static boolean integer(byte[] b, int from, int to) {
        int c0 = b[from];
        if (c0 != '-' && (c0 < '0' || c0 > '9')) {
            return false; // true, false, null
        }
        for (int i = from; i < to; i++) {
            int c = b[i];
            if (c == '.' || c == 'e' || c == 'E') {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether a string's bytes {@code b[from, to)} (quotes left out) hold a whole number as the reader reads an id so
     * written ({@link TraceEvent#wholeNumber}). One with an escape never does: the scan keeps only the escapes the writer
     * writes ({@code \"}, {@code \\}, controls), none of them part of a number, and sends any other through the writer.
     */
    static boolean numberString(byte[] b, int from, int to) {
        int n = to - from;
        if (n == 0 || n > 80) { // the rule's 20 characters take at most 80 bytes
            return false;
        }
        for (int k = from; k < to; k++) {
            if (b[k] == '\\') {
                return false;
            }
        }
        return TraceEvent.wholeNumber(new String(b, from, n, java.nio.charset.StandardCharsets.UTF_8)) != TraceEvent.NONE;
    }

    /** Whether the string token {@code b[from, to)} (quotes included) is {@code name}. */
    private static boolean is(byte[] b, int from, int to, String name) {
        if (to - from != name.length() + 2) {
            return false;
        }
        for (int k = 0; k < name.length(); k++) {
            if (b[from + 1 + k] != name.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The offset after the closing quote of the string opening at {@code i}; -1 when its bytes are not the writer's
     * (an escape it writes otherwise, a character it escapes, a UTF-8 form it writes otherwise).
     */
    private static int stringEnd(byte[] b, int i, int to, boolean trusted) {
        int k = i + 1;
        while (k < to) {
            int c = b[k] & 0xff;
            if (c == '"') {
                return k + 1;
            }
            if (c == '\\') {
                int e = b[k + 1];
                if (trusted || e == '"' || e == '\\' || e == 'b' || e == 't' || e == 'n' || e == 'f' || e == 'r') {
                    k += e == 'u' ? 6 : 2;
                    continue;
                }
                if (e != 'u' || b[k + 2] != '0' || b[k + 3] != '0' || (b[k + 4] != '0' && b[k + 4] != '1')) {
                    return -1; // \/ and \ u of any character not a control: the writer writes the character
                }
                int low = b[k + 5];
                int v = (b[k + 4] - '0') * 16 + (low >= '0' && low <= '9' ? low - '0' : low >= 'A' && low <= 'F' ? low - 'A' + 10 : -100);
                if (v < 0 || v == 8 || v == 9 || v == 10 || v == 12 || v == 13) {
                    return -1; // lower-case hex, or a control the writer writes short
                }
                k += 6;
                continue;
            }
            if (c < 0x80 || trusted) {
                if (c < 0x20 && !trusted) {
                    return -1;
                }
                k++;
                continue;
            }
            if (c >= 0xC2 && c <= 0xDF) {
                k += 2;
            } else if (c >= 0xE0 && c <= 0xEF) {
                int c1 = b[k + 1] & 0xff;
                if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 >= 0xA0)) {
                    return -1; // an overlong form, or a surrogate
                }
                k += 3;
            } else {
                return -1; // four bytes: the writer writes the character as two escapes
            }
        }
        return -1;
    }
}
