package org.flagos.trace.merge;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.flagos.trace.tracefile.Micros;
import org.flagos.trace.tracefile.TraceEvent;
import org.flagos.trace.tracefile.TraceLimits;

/**
 * Merge's fast path over one event object: its bytes checked, the fields a merge reads taken and its bytes cut as
 * {@link EventBytes} cuts them, in one pass, for the events of the common form only. That form is a subset of what
 * the one trace reader takes, on which both say the same: strict JSON, no field twice in an object, strings of ASCII
 * or UTF-8 of one to three bytes with only the escapes the JSON writer writes short, numbers of at most 60 characters,
 * at most {@link #MAX_DEPTH} levels, times within the reader's bound and field names without escapes. An event of any
 * other form throws {@link Unusual}, and the input is read again by the reader itself ({@link InputCopy#read}), which
 * takes it or refuses it in its own words: this class never refuses a trace, nor takes one the reader would refuse.
 */
final class EventScan {
    /** The event is not of the common form (or its end is not in the bytes given): the reader must judge it. */
    static final class Unusual extends RuntimeException {
        Unusual(String why) {
            super(why, null, false, false);
        }
    }

    /** The event goes on past the bytes given: scan again with more. */
    static final Unusual MORE = new Unusual("the event goes on past the bytes given");

    static final int MAX_DEPTH = 16;
    private static final int MAX_KEYS = 64;
    private static final int MAX_NUMBER = 60;

    private static final int OTHER = 0;
    private static final int PH = 1;
    private static final int CAT = 2;
    private static final int NAME = 3;
    private static final int PID = 4;
    private static final int TS = 5;
    private static final int DUR = 6;
    private static final int ID = 7;
    private static final int ARGS = 8;
    private static final int ARG_ID = 9;
    private static final int ARG_GROUP = 10;
    private static final int ARG_NAME = 11;

    /** The event's bytes as {@link EventBytes#scan} cuts them. */
    final EventBytes bytes = new EventBytes();
    /** The last event's fields, as the reader reads them ({@link TraceEvent}): null or {@link TraceEvent#NONE} when absent. */
    String ph;
    String cat;
    String name;
    String pid;
    String group;
    long tsNs;
    long durNs;
    boolean unusable;
    /** Its {@code args.name} string's bytes (quotes left out), or -1. */
    int labelFrom;
    int labelTo;
    /** Lines the event spans past its first (the reader's line count: {@code \n}, {@code \r\n} or {@code \r}). */
    int lines;

    private final Texts texts = new Texts();
    private byte[] b;
    private int i;
    private int lim;
    private byte[] text;
    private int o;
    private final int[] keyFrom = new int[MAX_DEPTH * MAX_KEYS];
    private final int[] keyTo = new int[MAX_DEPTH * MAX_KEYS];
    private int keys;

    /**
     * Scans the event whose {@code '{'} is {@code b[from]}, with {@code b[from, lim)} read. Returns the offset after its
     * closing brace; throws {@link #MORE} when its end is past {@code lim}, {@link Unusual} when it is not of the common form.
     */
    int scan(byte[] b, int from, int lim) {
        this.b = b;
        this.i = from;
        this.lim = lim;
        bytes.reset(lim - from);
        text = bytes.text;
        o = 0;
        keys = 0;
        ph = cat = name = pid = group = null;
        tsNs = TraceEvent.NONE;
        durNs = TraceEvent.NONE;
        unusable = false;
        labelFrom = -1;
        labelTo = -1;
        lines = 0;
        event();
        bytes.size = o;
        return i;
    }

    /** The label's text ({@code args.name}), unescaped. */
    String label() {
        return decode(b, labelFrom, labelTo);
    }

    private byte at(int k) {
        if (k >= lim) {
            throw MORE;
        }
        return b[k];
    }

    private void emit(byte c) {
        text[o++] = c;
    }

    private void white() {
        while (true) {
            byte c = at(i);
            if (c == ' ' || c == '\t') {
                i++;
            } else if (c == '\n') {
                lines++;
                i++;
            } else if (c == '\r') {
                if (at(i + 1) == '\n') {
                    i++;
                }
                lines++;
                i++;
            } else {
                return;
            }
        }
    }

    private void expect(byte c) {
        if (at(i) != c) {
            throw new Unusual("not the expected byte");
        }
        i++;
        emit(c);
    }

    private void event() {
        expect((byte) '{');
        white();
        if (at(i) == '}') {
            i++;
            emit((byte) '}');
            return;
        }
        int base = keys;
        while (true) {
            int field = key(base, 1);
            white();
            expect((byte) ':');
            white();
            topValue(field);
            white();
            byte c = at(i++);
            emit(c);
            if (c == '}') {
                keys = base;
                return;
            }
            if (c != ',') {
                throw new Unusual("not a comma or a closing brace");
            }
            white();
        }
    }

    /** A field name at {@code depth} in the object whose names start at {@code base}: checked and kept; its kind. */
    private int key(int base, int depth) {
        if (at(i) != '"') {
            throw new Unusual("a field name that is not a string");
        }
        int from = i + 1;
        int end = string(true);
        int to = end - 1;
        int n = to - from;
        if (keys == keyFrom.length || keys - base == MAX_KEYS) {
            throw new Unusual("too many fields");
        }
        for (int k = base; k < keys; k++) {
            if (keyTo[k] - keyFrom[k] == n && Arrays.equals(b, keyFrom[k], keyTo[k], b, from, to)) {
                throw new Unusual("a field twice");
            }
        }
        keyFrom[keys] = from;
        keyTo[keys] = to;
        keys++;
        copy(i, end);
        i = end;
        if (depth == 1) {
            return is(from, to, "ph") ? PH : is(from, to, "cat") ? CAT : is(from, to, "name") ? NAME : is(from, to, "pid") ? PID
                    : is(from, to, "ts") ? TS : is(from, to, "dur") ? DUR : is(from, to, "id") ? ID : is(from, to, "args") ? ARGS : OTHER;
        }
        if (depth == 2) {
            return is(from, to, TraceEvent.CORRELATION) || is(from, to, TraceEvent.EXTERNAL_ID) || is(from, to, TraceEvent.EXTERNAL_ID_2021)
                    ? ARG_ID : is(from, to, "Process Group Name") ? ARG_GROUP : is(from, to, "name") ? ARG_NAME : OTHER;
        }
        return OTHER;
    }

    private void topValue(int field) {
        byte c = at(i);
        switch (field) {
            case PH, CAT, NAME -> {
                if (c == '"') {
                    int from = i + 1;
                    int end = string(false);
                    String t = plainText(from, end - 1);
                    if (field == PH) {
                        ph = t;
                    } else if (field == CAT) {
                        cat = t;
                    } else {
                        name = t;
                    }
                    copy(i, end);
                    i = end;
                } else {
                    value(1);
                }
            }
            case PID -> {
                if (c == '"') {
                    int from = i + 1;
                    int end = string(false);
                    pid = plainText(from, end - 1);
                    bytes.hole(EventBytes.PID, o, b, from, end - 1);
                    i = end;
                } else if (c == '-' || (c >= '0' && c <= '9')) {
                    int from = i;
                    int end = number();
                    if (integer(from, end)) {
                        if (end - from > 18) {
                            throw new Unusual("a pid that may not fit 64 bits");
                        }
                        pid = texts.text(b, from, end);
                        bytes.hole(EventBytes.PID, o, b, from, end);
                    } else {
                        copy(from, end);
                    }
                    i = end;
                } else {
                    value(1);
                }
            }
            case TS, DUR -> {
                if (c == '-' || (c >= '0' && c <= '9')) {
                    int from = i;
                    int end = number();
                    long ns = nanos(from, end);
                    if (field == TS) {
                        tsNs = ns;
                        bytes.hole(EventBytes.TS, o, b, from, end);
                    } else {
                        if (ns < 0) {
                            unusable = true;
                        } else {
                            durNs = ns;
                        }
                        copy(from, end);
                    }
                    i = end;
                } else {
                    unusable = true; // a time that is no number: the reader leaves the event out
                    value(1);
                }
            }
            case ID -> idValue(true);
            case ARGS -> {
                if (c == '{') {
                    args();
                } else {
                    value(1);
                }
            }
            default -> value(1);
        }
    }

    /** An id's value: a number or a string the merge renumbers, cut out as {@link EventBytes#scan} cuts it. */
    private void idValue(boolean top) {
        byte c = at(i);
        if (c == '"') {
            int from = i + 1;
            int end = string(false);
            if (EventBytes.numberString(b, from, end - 1)) {
                bytes.hole(EventBytes.ID_NUMBER_STRING, o, b, from, end - 1);
            } else if (top) {
                bytes.hole(EventBytes.ID_STRING, o, b, from, end - 1);
            } else {
                copy(i, end);
            }
            i = end;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            int from = i;
            int end = number();
            if (integer(from, end)) {
                bytes.hole(EventBytes.ID_INT, o, b, from, end);
            } else {
                copy(from, end);
            }
            i = end;
        } else {
            value(top ? 1 : 2);
        }
    }

    private void args() {
        expect((byte) '{');
        white();
        if (at(i) == '}') {
            i++;
            emit((byte) '}');
            return;
        }
        int base = keys;
        while (true) {
            int field = key(base, 2);
            white();
            expect((byte) ':');
            white();
            byte c = at(i);
            if (field == ARG_ID) {
                idValue(false);
            } else if ((field == ARG_GROUP || field == ARG_NAME) && c == '"') {
                int from = i + 1;
                int end = string(false);
                if (field == ARG_GROUP) {
                    group = plainText(from, end - 1);
                } else {
                    labelFrom = from;
                    labelTo = end - 1;
                }
                copy(i, end);
                i = end;
            } else {
                value(2);
            }
            white();
            c = at(i++);
            emit(c);
            if (c == '}') {
                keys = base;
                return;
            }
            if (c != ',') {
                throw new Unusual("not a comma or a closing brace");
            }
            white();
        }
    }

    /** Any value inside the container at {@code depth}, copied as it is. */
    private void value(int depth) {
        byte c = at(i);
        if (c == '"') {
            int end = string(false);
            copy(i, end);
            i = end;
        } else if (c == '{' || c == '[') {
            if (depth + 1 > MAX_DEPTH) {
                throw new Unusual("deep");
            }
            container(c, depth + 1);
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            int end = number();
            copy(i, end);
            i = end;
        } else if (c == 't') {
            literal("true");
        } else if (c == 'f') {
            literal("false");
        } else if (c == 'n') {
            literal("null");
        } else {
            throw new Unusual("not a value");
        }
    }

    private void container(byte open, int depth) {
        i++;
        emit(open);
        white();
        byte close = open == '{' ? (byte) '}' : (byte) ']';
        if (at(i) == close) {
            i++;
            emit(close);
            return;
        }
        int base = keys;
        while (true) {
            if (open == '{') {
                key(base, depth);
                white();
                expect((byte) ':');
                white();
            }
            value(depth);
            white();
            byte c = at(i++);
            emit(c);
            if (c == close) {
                keys = base;
                return;
            }
            if (c != ',') {
                throw new Unusual("not a comma or a closing bracket");
            }
            white();
        }
    }

    private void literal(String word) {
        for (int k = 0; k < word.length(); k++) {
            if (at(i + k) != word.charAt(k)) {
                throw new Unusual("not a literal");
            }
        }
        copy(i, i + word.length());
        i += word.length();
    }

    /** The end of the JSON number at {@code i} (strict grammar); the next byte is left to the caller to judge. */
    private int number() {
        int k = i;
        if (at(k) == '-') {
            k++;
        }
        byte c = at(k);
        if (c == '0') {
            k++;
        } else if (c >= '1' && c <= '9') {
            while (digit(at(k))) {
                k++;
            }
        } else {
            throw new Unusual("not a number");
        }
        if (at(k) == '.') {
            k++;
            if (!digit(at(k))) {
                throw new Unusual("no digit after the point");
            }
            while (digit(at(k))) {
                k++;
            }
        }
        c = at(k);
        if (c == 'e' || c == 'E') {
            k++;
            c = at(k);
            if (c == '+' || c == '-') {
                k++;
            }
            if (!digit(at(k))) {
                throw new Unusual("no digit in the exponent");
            }
            while (digit(at(k))) {
                k++;
            }
        }
        if (k - i > MAX_NUMBER) {
            throw new Unusual("a long number");
        }
        return k;
    }

    private static boolean digit(byte c) {
        return c >= '0' && c <= '9';
    }

    private boolean integer(int from, int to) {
        for (int k = from; k < to; k++) {
            byte c = b[k];
            if (c == '.' || c == 'e' || c == 'E') {
                return false;
            }
        }
        return true;
    }

    /** A time's nanoseconds as the reader reads them; one past its bound is the reader's to refuse. */
    private long nanos(int from, int to) {
        long ns = Timestamps.nanos(b, from, to - from);
        if (ns == Long.MIN_VALUE) {
            try {
                ns = Micros.toNanos(new String(b, from, to - from, StandardCharsets.US_ASCII));
            } catch (ArithmeticException | NumberFormatException e) {
                ns = Long.MAX_VALUE;
            }
        }
        if (ns > TraceLimits.MAX_TIME_NS || ns < -TraceLimits.MAX_TIME_NS) {
            throw new Unusual("a time past the bound");
        }
        return ns;
    }

    /**
     * The offset after the closing quote of the string at {@code i}, its bytes checked: ASCII without controls, UTF-8 of
     * two or three bytes (no overlong form, no surrogate), the escapes {@code \" \\ \b \t \n \f \r} ({@code name}: none).
     */
    private int string(boolean name) {
        int k = i + 1;
        while (true) {
            int c = at(k) & 0xff;
            if (c == '"') {
                return k + 1;
            }
            if (c == '\\') {
                byte e = at(k + 1);
                if (name || !(e == '"' || e == '\\' || e == 'b' || e == 't' || e == 'n' || e == 'f' || e == 'r')) {
                    throw new Unusual("an escape");
                }
                k += 2;
            } else if (c >= 0x20 && c < 0x80) {
                k++;
            } else if (c >= 0xC2 && c <= 0xDF) {
                continuation(k + 1);
                k += 2;
            } else if (c >= 0xE0 && c <= 0xEF) {
                int c1 = at(k + 1) & 0xff;
                continuation(k + 1);
                continuation(k + 2);
                if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 >= 0xA0)) {
                    throw new Unusual("an overlong form or a surrogate");
                }
                k += 3;
            } else {
                throw new Unusual("a control, four bytes of UTF-8, or no UTF-8");
            }
        }
    }

    private void continuation(int k) {
        if ((at(k) & 0xC0) != 0x80) {
            throw new Unusual("no UTF-8");
        }
    }

    private void copy(int from, int to) {
        int n = to - from;
        System.arraycopy(b, from, text, o, n);
        o += n;
    }

    /** A string's text where it holds no escape (a field the reader keeps as text, compared as text). */
    private String plainText(int from, int to) {
        for (int k = from; k < to; k++) {
            if (b[k] == '\\') {
                throw new Unusual("an escape in a text the merge reads");
            }
        }
        return texts.text(b, from, to);
    }

    private static boolean is(byte[] b, int from, int to, String word) {
        if (to - from != word.length()) {
            return false;
        }
        for (int k = 0; k < word.length(); k++) {
            if (b[from + k] != word.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    private boolean is(int from, int to, String word) {
        return is(b, from, to, word);
    }

    /** The text of string bytes {@code b[from, to)} that {@link #string} took: its short escapes undone. */
    static String decode(byte[] b, int from, int to) {
        byte[] out = new byte[to - from];
        int n = 0;
        for (int k = from; k < to; k++) {
            byte c = b[k];
            if (c == '\\') {
                byte e = b[++k];
                c = switch (e) {
                    case 'b' -> '\b';
                    case 't' -> '\t';
                    case 'n' -> '\n';
                    case 'f' -> '\f';
                    case 'r' -> '\r';
                    default -> e; // \" and \\
                };
            }
            out[n++] = c;
        }
        return new String(out, 0, n, StandardCharsets.UTF_8);
    }

    /** One string per text seen lately (a slot per hash of its bytes), not one per event. */
    private static final class Texts {
        private final byte[][] keys = new byte[512][];
        private final String[] values = new String[512];

        String text(byte[] b, int from, int to) {
            int h = 0;
            for (int k = from; k < to; k++) {
                h = 31 * h + b[k];
            }
            int slot = (h ^ (h >>> 16)) & (keys.length - 1);
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
}
