package org.flagos.trace.merge;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.flagos.trace.tracefile.ByteTexts;
import org.flagos.trace.tracefile.FieldNames;
import org.flagos.trace.tracefile.JsonGrammar;
import org.flagos.trace.tracefile.Micros;
import org.flagos.trace.tracefile.TraceEvent;
import org.flagos.trace.tracefile.TraceLimits;

/**
 * Merge's fast path over one event object: its bytes checked, the fields a merge reads taken and its bytes cut as
 * {@link EventBytes} cuts them, in one pass (two for an event with white space whose text is wanted only where its
 * bytes as read are not it: {@link #EventScan(boolean)}), for the events of the common form only. Field names are
 * checked once per sequence of names ({@link FieldNames}). That form is a subset of what
 * the one trace reader takes, on which both say the same: strict JSON, no field twice in an object, strings of ASCII
 * or UTF-8 of one to three bytes with only the escapes the JSON writer writes short, numbers of at most {@value JsonGrammar#MAX_NUMBER} characters,
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
    String pid;
    String group;
    boolean unusable;
    /** Its ts and dur: {@link TraceEvent#NONE} when absent, {@link #UNREAD} when not read yet ({@link #tsNs()}, {@link #durNs()}). */
    private long tsNs;
    private long durNs;
    private int tsFrom;
    private int tsTo;
    private int durFrom;
    private int durTo;
    private static final long UNREAD = Long.MIN_VALUE + 1;
    /** Whether the last number had an exponent; whether it was an integer (no point, no exponent). */
    private boolean exponent;
    private boolean integral;
    /** Its {@code name} string's bytes (quotes left out), or -1; its text is {@link #name()}. */
    private int nameFrom;
    private int nameTo;
    private String name;
    /** Its {@code args.name} string's bytes (quotes left out), or -1. */
    int labelFrom;
    int labelTo;
    /** Per hole: where its value (quotes included) is in the event's bytes as read, from the event's start. */
    int[] spanFrom = new int[8];
    int[] spanTo = new int[8];
    private int start;
    private int spanned;
    /** Lines the event spans past its first (the reader's line count: {@code \n}, {@code \r\n} or {@code \r}). */
    int lines;

    private final ByteTexts texts = new ByteTexts();
    /** The texts of one printable ASCII character (a {@code ph}). */
    private static final String[] ONE = new String[128];

    static {
        for (char c = 0x20; c < 0x7F; c++) {
            ONE[c] = String.valueOf(c).intern();
        }
    }
    private byte[] b;
    private int i;
    private int lim;
    private byte[] text;
    private int o;
    private final int[] keyFrom = new int[MAX_DEPTH * MAX_KEYS];
    private final int[] keyTo = new int[MAX_DEPTH * MAX_KEYS];
    private final int[] keyHash = new int[MAX_DEPTH * MAX_KEYS];
    private int keys;

    /**
     * Whether the event's text ({@link EventBytes#text} and its holes' values) is wanted only where its bytes as read are
     * not it ({@link #asRead} false): the copy takes the others from the trace by their spans. Each event is then scanned
     * without building its text, and once more with it where it has white space between its tokens.
     */
    private final boolean spans;
    /** Whether this walk builds the event's text. */
    private boolean emit;
    /** The kind of the field name last read ({@link #key}). */
    private int field;
    /** The names of events' fields and of their args' fields seen so far. */
    private final FieldNames eventNames = new FieldNames();
    private final FieldNames argNames = new FieldNames();

    /** Which fields of an object the merge reads: an event's, its args', or none. */
    private static final int IN_EVENT = 0;
    private static final int IN_ARGS = 1;
    private static final int IN_OTHER = 2;

    /** A scan that builds every event's text. */
    EventScan() {
        this(false);
    }

    /** @param spans whether the text is wanted only of events whose bytes as read are not it ({@link #spans}) */
    EventScan(boolean spans) {
        this.spans = spans;
    }

    /**
     * Scans the event whose {@code '{'} is {@code b[from]}, with {@code b[from, lim)} read. Returns the offset after its
     * closing brace; throws {@link #MORE} when its end is past {@code lim}, {@link Unusual} when it is not of the common form.
     */
    int scan(byte[] b, int from, int lim) {
        walk(b, from, lim, !spans);
        if (!emit && !asRead()) {
            walk(b, from, lim, true);
        }
        return i;
    }

    private void walk(byte[] b, int from, int lim, boolean emit) {
        this.b = b;
        this.i = from;
        this.lim = lim;
        this.start = from;
        this.emit = emit;
        this.spanned = 0;
        bytes.reset(lim - from);
        text = bytes.text;
        o = 0;
        keys = 0;
        ph = cat = name = pid = group = null;
        nameFrom = -1;
        nameTo = -1;
        tsNs = TraceEvent.NONE;
        durNs = TraceEvent.NONE;
        unusable = false;
        labelFrom = -1;
        labelTo = -1;
        lines = 0;
        if (at(i) != '{') {
            throw new Unusual("not the expected byte");
        }
        object(1, IN_EVENT);
        bytes.size = o;
    }

    /** The last event's length as read. */
    int length() {
        return i - start;
    }

    /** The event's ts in nanoseconds, {@link TraceEvent#NONE} when it has none. */
    long tsNs() {
        if (tsNs == UNREAD) {
            tsNs = nanos(tsFrom, tsTo);
        }
        return tsNs;
    }

    /** The event's dur in nanoseconds, {@link TraceEvent#NONE} when it has none. */
    long durNs() {
        if (durNs == UNREAD) {
            durNs = nanos(durFrom, durTo);
        }
        return durNs;
    }

    /** The event's {@code name} when a string, else null: read when asked (most events' names are not). */
    String name() {
        if (name == null && nameFrom >= 0) {
            name = plainText(nameFrom, nameTo);
        }
        return name;
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
        if (emit) {
            text[o] = c;
        }
        o++;
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

    /**
     * The object whose {@code '{'} is at {@code i}, at {@code depth} (the event at 1), its fields those of {@code fields}
     * ({@link #IN_EVENT}, {@link #IN_ARGS}, {@link #IN_OTHER}): each name checked, each value taken as {@link #member} takes it.
     */
    private void object(int depth, int fields) {
        i++;
        emit((byte) '{');
        white();
        if (at(i) == '}') {
            i++;
            emit((byte) '}');
            return;
        }
        int base = keys;
        FieldNames names = fields == IN_EVENT ? eventNames : fields == IN_ARGS ? argNames : null;
        int node = names == null ? -1 : FieldNames.ROOT;
        while (true) {
            node = key(base, names, node, fields);
            white();
            expect((byte) ':');
            white();
            member(field, depth);
            if (!another((byte) '}')) {
                keys = base;
                return;
            }
        }
    }

    /**
     * After a member of an object or an array: white space, then a comma (true: another member follows, the white space
     * after it passed) or {@code close} (false: the container ends), copied; anything else is {@link Unusual}.
     */
    private boolean another(byte close) {
        white();
        byte c = at(i++);
        emit(c);
        if (c == close) {
            return false;
        }
        if (c != ',') {
            throw new Unusual(close == '}' ? "not a comma or a closing brace" : "not a comma or a closing bracket");
        }
        white();
        return true;
    }

    /**
     * A field name of the object whose names start at {@code base}, its kind left in {@link #field}: found among the
     * children of {@code node} in {@code names} (then checked already), or checked here (printable ASCII, no escape; not
     * one of the names before it) and added there. Returns its node, -1 when it has none (not kept, or no {@code names}).
     */
    private int key(int base, FieldNames names, int node, int fields) {
        if (at(i) != '"') {
            throw new Unusual("a field name that is not a string");
        }
        if (keys == keyFrom.length || keys - base == MAX_KEYS) {
            throw new Unusual("too many fields");
        }
        int from = i + 1;
        if (node >= 0) {
            int known = names.child(node, b, from, lim);
            if (known >= 0) {
                int to = from + names.length(known);
                keyFrom[keys] = from;
                keyTo[keys] = to;
                keyHash[keys] = names.hash(known);
                keys++;
                copy(i, to + 1);
                i = to + 1;
                field = names.kind(known);
                return known;
            }
        }
        int k = from;
        int h = 0;
        while (true) {
            byte c = at(k);
            if (c == '"') {
                break;
            }
            if (c < 0x20 || c == '\\' || c == 0x7F) { // negative too: not ASCII
                throw new Unusual("a field name of other bytes");
            }
            h = 31 * h + c;
            k++;
        }
        int to = k;
        int n = to - from;
        for (int q = base; q < keys; q++) {
            if (keyHash[q] == h && keyTo[q] - keyFrom[q] == n && Arrays.equals(b, keyFrom[q], keyTo[q], b, from, to)) {
                throw new Unusual("a field twice");
            }
        }
        keyFrom[keys] = from;
        keyTo[keys] = to;
        keyHash[keys] = h;
        keys++;
        copy(i, to + 1);
        i = to + 1;
        field = fields == IN_EVENT ? eventField(from, to) : fields == IN_ARGS ? argField(from, to) : OTHER;
        return node >= 0 ? names.add(node, b, from, to, h, field) : -1;
    }

    /** The kind of an event's field named {@code b[from, to)}. */
    private int eventField(int from, int to) {
        switch (to - from) {
            case 2 -> {
                byte c0 = b[from];
                byte c1 = b[from + 1];
                return c0 == 'p' && c1 == 'h' ? PH : c0 == 't' && c1 == 's' ? TS : c0 == 'i' && c1 == 'd' ? ID : OTHER;
            }
            case 3 -> {
                return is(from, to, "cat") ? CAT : is(from, to, "pid") ? PID : is(from, to, "dur") ? DUR : OTHER;
            }
            case 4 -> {
                return is(from, to, "name") ? NAME : is(from, to, "args") ? ARGS : OTHER;
            }
            default -> {
                return OTHER;
            }
        }
    }

    /** The kind of an args field named {@code b[from, to)}. */
    private int argField(int from, int to) {
        switch (to - from) {
            case 11 -> { // the reader's id fields of args, all three of 11 characters
                return is(from, to, TraceEvent.CORRELATION) || is(from, to, TraceEvent.EXTERNAL_ID)
                        || is(from, to, TraceEvent.EXTERNAL_ID_2021) ? ARG_ID : OTHER;
            }
            case 18 -> {
                return is(from, to, "Process Group Name") ? ARG_GROUP : OTHER;
            }
            case 4 -> {
                return is(from, to, "name") ? ARG_NAME : OTHER;
            }
            default -> {
                return OTHER;
            }
        }
    }

    /** The value of a field of kind {@code field} in the object at {@code depth}. */
    private void member(int field, int depth) {
        byte c = at(i);
        switch (field) {
            case PH, CAT, NAME -> {
                if (c == '"') {
                    int from = i + 1;
                    int end = string();
                    if (field == PH) {
                        ph = end - from == 2 && b[from] >= 0x20 && b[from] < 0x7F && b[from] != '\\' ? ONE[b[from]] : plainText(from, end - 1);
                    } else if (field == CAT) {
                        cat = plainText(from, end - 1);
                    } else {
                        nameFrom = from;
                        nameTo = end - 1;
                    }
                    copy(i, end);
                    i = end;
                } else {
                    value(depth);
                }
            }
            case PID -> {
                if (c == '"') {
                    int from = i + 1;
                    int end = string();
                    pid = plainText(from, end - 1);
                    hole(EventBytes.PID, from, end - 1, true);
                    i = end;
                } else if (c == '-' || (c >= '0' && c <= '9')) {
                    int from = i;
                    int end = number();
                    if (integral) {
                        if (end - from > 18) {
                            throw new Unusual("a pid that may not fit 64 bits");
                        }
                        pid = texts.text(b, from, end);
                        hole(EventBytes.PID, from, end, false);
                    } else {
                        copy(from, end);
                    }
                    i = end;
                } else {
                    value(depth);
                }
            }
            case TS, DUR -> {
                if (c == '-' || (c >= '0' && c <= '9')) {
                    int from = i;
                    int end = number();
                    // at most 15 characters, no sign, no exponent: under 10^15 µs, within the bound; its value read when asked
                    boolean plain = end - from <= 15 && c != '-' && !exponent;
                    long ns = plain ? UNREAD : nanos(from, end);
                    if (field == TS) {
                        tsNs = ns;
                        tsFrom = from;
                        tsTo = end;
                        hole(EventBytes.TS, from, end, false);
                    } else {
                        if (ns < 0 && ns != UNREAD) {
                            unusable = true;
                        } else {
                            durNs = ns;
                            durFrom = from;
                            durTo = end;
                        }
                        copy(from, end);
                    }
                    i = end;
                } else {
                    unusable = true; // a time that is no number: the reader leaves the event out
                    value(depth);
                }
            }
            case ID -> idValue(true, depth);
            case ARG_ID -> idValue(false, depth);
            case ARGS -> {
                if (c == '{') {
                    object(depth + 1, IN_ARGS);
                } else {
                    value(depth);
                }
            }
            case ARG_GROUP, ARG_NAME -> {
                if (c == '"') {
                    int from = i + 1;
                    int end = string();
                    if (field == ARG_GROUP) {
                        group = plainText(from, end - 1);
                    } else {
                        labelFrom = from;
                        labelTo = end - 1;
                    }
                    copy(i, end);
                    i = end;
                } else {
                    value(depth);
                }
            }
            default -> value(depth);
        }
    }

    /** An id's value: a number or a string the merge renumbers, cut out as {@link EventBytes#scan} cuts it. */
    private void idValue(boolean top, int depth) {
        byte c = at(i);
        if (c == '"') {
            int from = i + 1;
            int end = string();
            if (EventBytes.numberString(b, from, end - 1)) {
                hole(EventBytes.ID_NUMBER_STRING, from, end - 1, true);
            } else if (top) {
                hole(EventBytes.ID_STRING, from, end - 1, true);
            } else {
                copy(i, end);
            }
            i = end;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            int from = i;
            int end = number();
            if (integral) {
                hole(EventBytes.ID_INT, from, end, false);
            } else {
                copy(from, end);
            }
            i = end;
        } else {
            value(depth);
        }
    }

    /** Any value inside the container at {@code depth}, copied as it is. */
    private void value(int depth) {
        byte c = at(i);
        if (c == '"') {
            int end = string();
            copy(i, end);
            i = end;
        } else if (c == '{' || c == '[') {
            if (depth + 1 > MAX_DEPTH) {
                throw new Unusual("deep");
            }
            if (c == '{') {
                object(depth + 1, IN_OTHER);
            } else {
                array(depth + 1);
            }
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            int end = number();
            copy(i, end);
            i = end;
        } else if (c == 't' || c == 'f' || c == 'n') {
            literal();
        } else {
            throw new Unusual("not a value");
        }
    }

    /** The array whose {@code '['} is at {@code i}, at {@code depth}. */
    private void array(int depth) {
        i++;
        emit((byte) '[');
        white();
        if (at(i) == ']') {
            i++;
            emit((byte) ']');
            return;
        }
        do {
            value(depth);
        } while (another((byte) ']'));
    }

    private void literal() {
        int end = JsonGrammar.literal(b, i, lim);
        if (end < 0) {
            throw end == JsonGrammar.MORE ? MORE : new Unusual("not a literal");
        }
        copy(i, end);
        i = end;
    }

    /**
     * The end of the JSON number at {@code i} ({@link JsonGrammar#number}), whether it is an integer left in
     * {@link #integral} and whether it has an exponent in {@link #exponent}; the next byte is left to the caller to judge.
     */
    private int number() {
        long r = JsonGrammar.number(b, i, lim);
        if (r < 0) {
            throw r == JsonGrammar.MORE ? MORE : new Unusual("not a number of the common form");
        }
        exponent = (r & JsonGrammar.EXPONENT) != 0;
        integral = JsonGrammar.integral(r);
        return JsonGrammar.end(r);
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
     * The offset after the closing quote of the string at {@code i}, its bytes checked as {@link JsonGrammar#character}
     * checks them, with the escapes {@code \" \\ \b \t \n \f \r} only.
     */
    private int string() {
        byte[] b = this.b;
        int lim = this.lim;
        int k = i + 1;
        while (true) {
            byte plain;
            while (k < lim && (plain = b[k]) >= 0x20 && plain != '"' && plain != '\\') { // printable ASCII, the most of it
                k++;
            }
            if (at(k) == '"') {
                return k + 1;
            }
            k = JsonGrammar.character(b, k, lim, false);
            if (k < 0) {
                throw k == JsonGrammar.MORE ? MORE : new Unusual("a control, an escape, four bytes of UTF-8, or no UTF-8");
            }
        }
    }

    /**
     * A hole of {@code kind} for the value {@code b[from, to)} (a string's quotes left out: {@code quoted}), where the
     * event's bytes as read have it at {@link #spanFrom}, {@link #spanTo} (quotes included, from the event's start).
     */
    private void hole(byte kind, int from, int to, boolean quoted) {
        int h = bytes.holes;
        if (h == spanFrom.length) {
            spanFrom = Arrays.copyOf(spanFrom, h * 2);
            spanTo = Arrays.copyOf(spanTo, h * 2);
        }
        spanFrom[h] = (quoted ? from - 1 : from) - start;
        spanTo[h] = (quoted ? to + 1 : to) - start;
        spanned += spanTo[h] - spanFrom[h];
        if (emit) {
            bytes.hole(kind, o, b, from, to);
        } else {
            bytes.span(kind);
        }
    }

    /**
     * Whether the event's bytes as read are its {@link #bytes} with the holes' spans in them, nothing else left out (no
     * white space between its tokens): then a copy may take them from the trace itself.
     */
    boolean asRead() {
        return i - start == o + spanned;
    }

    private void copy(int from, int to) {
        int n = to - from;
        if (emit) {
            System.arraycopy(b, from, text, o, n);
        }
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
}
