package org.flagos.trace.report;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.BooleanSupplier;
import org.flagos.trace.tracefile.ByteTexts;
import org.flagos.trace.tracefile.FieldNames;
import org.flagos.trace.tracefile.JsonGrammar;
import org.flagos.trace.tracefile.Micros;
import org.flagos.trace.tracefile.TraceEvent;
import org.flagos.trace.tracefile.TraceLimits;

/**
 * The summary's fast path over a stretch of a trace's events (a middle chunk of {@link ChunkedTraceRead}): its bytes
 * checked and the fields {@link SummaryEvents} keeps taken straight from them, in one pass, for events of the common
 * form only. That form is a subset of what the one trace reader ({@link org.flagos.trace.tracefile.TraceReader}) takes,
 * on which both read the same fields: strict JSON, no field twice in any object, field names of printable ASCII
 * without escapes, strings of ASCII or of UTF-8 of two or three bytes (no overlong form, no surrogate) with JSON's
 * escapes only where the summary does not read the text, numbers of at most {@value #MAX_NUMBER} characters
 * (integers the summary reads of at most 18 digits), at most {@value #MAX_DEPTH} levels, times within the reader's
 * bound, events within its size. A stretch with anything else throws {@link Unusual}, and the chunk is read by the
 * reader itself, which takes it or refuses it in its own words: this class never refuses a trace, nor takes one the
 * reader would refuse. The fields' rules are {@link TraceEvent}'s: what the reader reads of an event as text is read
 * here as text, a number as a number, anything else as no value.
 */
final class SummaryScan {
    /** The stretch is not of the common form: the reader must judge it. */
    static final class Unusual extends RuntimeException {
        Unusual(String why) {
            super(why, null, false, false);
        }
    }

    static final int MAX_DEPTH = 16;
    /** Bytes a buffer holds past the end of what it scans: the 0 that ends it, and seven read with it. */
    static final int SLACK = 8;
    private static final int MAX_KEYS = 64;
    static final int MAX_NUMBER = JsonGrammar.MAX_NUMBER;
    /** Digits of an integer the scan reads as a number: within a long whatever they are. */
    private static final int MAX_DIGITS = 18;

    // the fields of an event the summary reads (TraceReader's names)
    private static final int OTHER = 0;
    private static final int PH = 1;
    private static final int CAT = 2;
    private static final int NAME = 3;
    private static final int PID = 4;
    private static final int TID = 5;
    private static final int TS = 6;
    private static final int DUR = 7;
    private static final int ARGS = 8;
    // and of its args
    private static final int EXTERNAL = 9;
    private static final int DEVICE = 10;
    private static final int DEVICE_TYPE = 11;
    private static final int TOTAL_ALLOCATED = 12;
    private static final int IN_ELEMS = 13;
    private static final int OUT_ELEMS = 14;
    private static final int DTYPE = 15;

    /** A byte array read as longs, little-endian: eight bytes at a time. */
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;

    /** The texts of one printable ASCII character (a {@code ph}). */
    private static final String[] ONE = new String[128];

    static {
        for (char c = 0x20; c < 0x7F; c++) {
            ONE[c] = String.valueOf(c);
        }
    }

    private final ByteTexts texts = new ByteTexts();
    /** The sequences of names checked in events and in their args: a name found there is checked, and its kind known. */
    private final FieldNames eventNames = new FieldNames();
    private final FieldNames argNames = new FieldNames();
    /** The node of the last name {@link #key} took in {@link #eventNames} or {@link #argNames}; -1: none. */
    private int node;
    private byte[] b;
    private int i;
    private int lim;
    /** Whether the last string scanned held an escape. */
    private boolean escaped;
    /** Whether the last number scanned was an integer (no point, no exponent). */
    private boolean integral;

    // the names of each open object, by depth: their bytes and hashes, and a bit per hash
    private final int[] keyFrom = new int[MAX_DEPTH * MAX_KEYS];
    private final int[] keyTo = new int[MAX_DEPTH * MAX_KEYS];
    private final int[] keyHash = new int[MAX_DEPTH * MAX_KEYS];
    private final long[] seen = new long[MAX_DEPTH + 2];
    private int keys;

    // the event's fields: a text's bytes (from -1: none), a pid's kind (0 none, 1 a string, 2 an integer), numbers
    private int phFrom;
    private int phTo;
    private int catFrom;
    private int catTo;
    private int nameFrom;
    private int nameTo;
    private int dtypeFrom;
    private int dtypeTo;
    private int pidFrom;
    private int pidTo;
    private int pidKind;
    private int tidFrom;
    private int tidTo;
    private int tidKind;
    private long tsNs;
    private long durNs;
    private boolean unusable;
    private long externalId;
    private long device;
    private long deviceType;
    private long totalAllocated;
    private long inElems;
    private long outElems;

    // the numbers of the event being scanned, for its form: where each is and which field it is the value of
    private final EventForms forms = new EventForms();
    private final int[] numberFrom = new int[EventForms.MAX_NUMBERS];
    private final int[] numberTo = new int[EventForms.MAX_NUMBERS];
    private final int[] numberField = new int[EventForms.MAX_NUMBERS];
    private int numbers;
    /** The field the number scanned next is the value of ({@link #OTHER} but where a field's rule reads it). */
    private int numberField0 = OTHER;
    /** The args' fields set so far in this event, a bit each: one set twice (a name and its 2021 spelling) keeps no form. */
    private int argFields;
    private boolean formless;
    /** Whether a number of the form matched last was read again, so that the pid's or tid's text is the event's own. */
    private boolean pidMoved;
    private boolean tidMoved;
    private long fromForms;

    /**
     * Scans {@code b[from, to)}, the elements of a trace's events array between two of its commas (white space around
     * them), and keeps the events the summary reads in {@code into}, in order; checks {@code stopped} now and then and
     * ends early where it says so. Throws {@link Unusual} where the bytes are not events of the common form.
     * {@code b[to]} must be 0, a byte that JSON holds nowhere, which ends every step of the scan there unchecked, and
     * {@code b} at least {@link #SLACK} bytes longer than {@code to}: the scan reads eight bytes at a time.
     */
    void scan(byte[] b, int from, int to, SummaryEvents into, BooleanSupplier stopped) {
        if (b.length < to + SLACK || b[to] != 0) {
            throw new IllegalArgumentException("no 0 byte after the bytes to scan, or too few bytes after it");
        }
        this.b = b;
        this.i = from;
        this.lim = to;
        white();
        for (int n = 1; ; n++) {
            int start = i;
            EventForm form = forms.guess();
            if (form != null && formed(form)) {
                forms.hit(form);
                fromForms++;
            } else {
                i = start;
                event();
                form = learn(start);
                forms.missed(form);
                form = null; // handed on from its own bytes
            }
            if (i - start > TraceLimits.MAX_EVENT_BYTES) {
                throw new Unusual("an event past the reader's bound");
            }
            handOn(into, form);
            white();
            if (i == lim) {
                return;
            }
            if (b[i] != ',') {
                throw new Unusual("not a comma between events");
            }
            i++;
            white();
            if ((n & 1023) == 0 && stopped.getAsBoolean()) {
                return;
            }
        }
    }

    /** Events read from their forms so far. */
    long eventsFromForms() {
        return fromForms;
    }

    /**
     * Hands the event just scanned to {@code into} by its kind, as {@link SummaryEvents#handOn} does: its texts from its
     * bytes, or from its {@code form} (null: none) where it was of one.
     */
    private void handOn(SummaryEvents into, EventForm form) {
        String ph = form != null ? form.ph : phText();
        String name = form != null ? form.name : textOf(nameFrom, nameTo);
        switch (SummaryEvents.kind(ph, name)) {
            case SummaryEvents.COMPLETE -> into.complete(form != null ? form.cat : textOf(catFrom, catTo), name,
                    form != null && !pidMoved ? form.pid : pidText(pidKind, pidFrom, pidTo),
                    form != null && !tidMoved ? form.tid : pidText(tidKind, tidFrom, tidTo), tsNs, durNs, unusable, externalId,
                    inElems, outElems, form != null ? form.dtype : textOf(dtypeFrom, dtypeTo));
            case SummaryEvents.MEMORY -> into.memory(totalAllocated, tsNs, unusable, deviceType, device,
                    form != null && !pidMoved ? form.pidNumber : pidNumber());
            default -> { }
        }
    }

    private String phText() {
        return phFrom < 0 ? null : phTo - phFrom == 1 && b[phFrom] >= 0x20 && b[phFrom] < 0x7F ? ONE[b[phFrom]] : texts.text(b, phFrom, phTo);
    }

    private String textOf(int from, int to) {
        return from < 0 ? null : texts.text(b, from, to);
    }

    /**
     * The form of the event {@code b[start, i)} just scanned from its bytes (null: none kept); a new one takes the
     * event's values.
     */
    private EventForm learn(int start) {
        if (formless || unusable || !forms.learning()) { // an unusable time, or an args field set twice: no form
            return null;
        }
        EventForm f = forms.find(b, start, i, numberFrom, numberTo, numberField, numbers);
        if (f != null && !f.filled) {
            f.ph = phText();
            f.name = textOf(nameFrom, nameTo);
            f.cat = textOf(catFrom, catTo);
            f.dtype = textOf(dtypeFrom, dtypeTo);
            f.pid = pidText(pidKind, pidFrom, pidTo);
            f.tid = pidText(tidKind, tidFrom, tidTo);
            f.pidKind = pidKind;
            f.tidKind = tidKind;
            f.pidNumber = pidNumber();
            f.tsNs = tsNs;
            f.durNs = durNs;
            f.externalId = externalId;
            f.device = device;
            f.deviceType = deviceType;
            f.totalAllocated = totalAllocated;
            f.inElems = inElems;
            f.outElems = outElems;
            f.filled = true;
        }
        return f;
    }

    /**
     * Whether the event at {@code i} is of {@code form}: its bytes the form's but for numbers where the form has numbers,
     * each checked and read by its field's rule as {@link #event} reads it; then {@code i} is past it and the fields are
     * the event's. False where anything else differs (where {@code i} is left is then the caller's to reset).
     */
    private boolean formed(EventForm form) {
        byte[] t = form.bytes;
        int n = t.length;
        tsNs = form.tsNs;
        durNs = form.durNs;
        unusable = false;
        externalId = form.externalId;
        device = form.device;
        deviceType = form.deviceType;
        totalAllocated = form.totalAllocated;
        inElems = form.inElems;
        outElems = form.outElems;
        pidKind = form.pidKind;
        tidKind = form.tidKind;
        pidMoved = tidMoved = false;
        int[] from = form.numberFrom;
        int[] to = form.numberTo;
        int count = from.length;
        int ti = 0;
        int bi = i;
        int k = 0;
        while (true) {
            int m = Arrays.mismatch(t, ti, n, b, bi, bi + Math.min(n - ti, lim - bi));
            if (m < 0) {
                i = bi + n - ti;
                return true;
            }
            int p = ti + m; // the first byte that differs: within a number of the form, or just after one, or no match
            while (k < count && to[k] < p) {
                k++;
            }
            if (k == count || from[k] > p) {
                return false;
            }
            i = bi + from[k] - ti;
            byte c = b[i];
            if (c != '-' && (c < '0' || c > '9')) {
                return false;
            }
            try {
                number(form.numberField[k]);
            } catch (Unusual e) {
                return false;
            }
            ti = to[k];
            bi = i;
            k++;
        }
    }

    /** The number at {@code i} (its first byte a sign or a digit), read by the rule of {@code field}, as {@link #event} reads it. */
    private void number(int field) {
        switch (field) {
            case PID, TID -> numericPid(field);
            case TS, DUR -> time(field);
            case EXTERNAL, DEVICE, DEVICE_TYPE, TOTAL_ALLOCATED, IN_ELEMS, OUT_ELEMS -> setId(field, id(field));
            default -> number();
        }
    }

    private String pidText(int kind, int from, int to) {
        return kind == 0 ? null : texts.text(b, from, to);
    }

    /** The pid as a number ({@link TraceEvent#pidNumber}). */
    private long pidNumber() {
        return pidKind == 0 ? TraceEvent.NONE : pidKind == 2 ? integer(pidFrom, pidTo) : TraceEvent.wholeNumber(texts.text(b, pidFrom, pidTo));
    }

    /** The byte at {@code k}, which a step reads only where the byte before it was not the 0 after the bytes. */
    private byte at(int k) {
        return b[k];
    }

    private void white() {
        while (true) {
            byte c = b[i];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                return;
            }
            i++;
        }
    }

    private void expect(byte c) {
        if (at(i) != c) {
            throw new Unusual("not the expected byte");
        }
        i++;
    }

    private void event() {
        phFrom = catFrom = nameFrom = dtypeFrom = -1;
        pidKind = tidKind = 0;
        tsNs = durNs = TraceEvent.NONE;
        unusable = false;
        externalId = device = deviceType = totalAllocated = inElems = outElems = TraceEvent.NONE;
        numbers = 0;
        argFields = 0;
        formless = false;
        expect((byte) '{');
        white();
        if (at(i) == '}') {
            i++;
            return;
        }
        keys = 0;
        seen[1] = 0;
        int at = FieldNames.ROOT;
        while (true) {
            int field = key(0, 1, eventNames, at);
            at = node;
            white();
            expect((byte) ':');
            white();
            field(field);
            if (!another((byte) '}')) {
                return;
            }
        }
    }

    /**
     * After a member of an object or an array: white space, then a comma (true: another member follows, the white space
     * after it passed) or {@code close} (false: the container ends); anything else is {@link Unusual}.
     */
    private boolean another(byte close) {
        white();
        byte c = at(i++);
        if (c == close) {
            return false;
        }
        if (c != ',') {
            throw new Unusual(close == '}' ? "not a comma or a closing brace" : "not a comma or a closing bracket");
        }
        white();
        return true;
    }

    /** The value of a field of the event, read as {@code TraceReader} reads it. */
    private void field(int field) {
        byte c = at(i);
        switch (field) {
            case PH, CAT, NAME -> {
                if (c != '"') {
                    value(1); // not a string: no value
                    return;
                }
                int from = i + 1;
                int to = text();
                if (field == PH) {
                    phFrom = from;
                    phTo = to;
                } else if (field == CAT) {
                    catFrom = from;
                    catTo = to;
                } else {
                    nameFrom = from;
                    nameTo = to;
                }
            }
            case PID, TID -> {
                int kind = 0;
                int from = i;
                int to;
                if (c == '"') {
                    from = i + 1;
                    to = text();
                    kind = 1;
                } else if (c == '-' || (c >= '0' && c <= '9')) {
                    numericPid(field);
                    return;
                } else {
                    value(1);
                    return;
                }
                if (field == PID) {
                    pidKind = kind;
                    pidFrom = from;
                    pidTo = to;
                } else {
                    tidKind = kind;
                    tidFrom = from;
                    tidTo = to;
                }
            }
            case TS, DUR -> {
                if (c != '-' && (c < '0' || c > '9')) {
                    unusable = true; // a time that is no number: the event is left out
                    value(1);
                    return;
                }
                time(field);
            }
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

    private void args() {
        i++;
        white();
        if (at(i) == '}') {
            i++;
            return;
        }
        int base = keys;
        seen[2] = 0;
        int at = FieldNames.ROOT;
        while (true) {
            int field = key(base, 2, argNames, at);
            at = node;
            white();
            expect((byte) ':');
            white();
            if (field != OTHER) {
                formless |= (argFields & 1 << field) != 0;
                argFields |= 1 << field;
            }
            switch (field) {
                case EXTERNAL, DEVICE, DEVICE_TYPE, TOTAL_ALLOCATED, IN_ELEMS, OUT_ELEMS -> setId(field, id(field));
                case DTYPE -> {
                    if (at(i) == '"') {
                        dtypeFrom = i + 1;
                        dtypeTo = text();
                    } else {
                        dtypeFrom = -1; // not a string: no value
                        value(2);
                    }
                }
                default -> value(2);
            }
            if (!another((byte) '}')) {
                keys = base;
                return;
            }
        }
    }

    /** A pid or tid that is a number (at {@code i}): an integer of at most {@link #MAX_DIGITS} digits is one, else none. */
    private void numericPid(int field) {
        int from = i;
        numberField0 = field;
        int to = number();
        int kind = 0;
        if (integral) {
            if (to - from > MAX_DIGITS) {
                throw new Unusual("a pid that may be past 64 bits");
            }
            kind = 2;
        }
        if (field == PID) {
            pidKind = kind;
            pidFrom = from;
            pidTo = to;
            pidMoved = true;
        } else {
            tidKind = kind;
            tidFrom = from;
            tidTo = to;
            tidMoved = true;
        }
    }

    /** A ts or dur that is a number (at {@code i}), in nanoseconds within the reader's bound; a negative dur is unusable. */
    private void time(int field) {
        int from = i;
        numberField0 = field;
        long ns;
        try {
            ns = Micros.toNanos(b, from, number());
        } catch (ArithmeticException | NumberFormatException e) {
            ns = Long.MAX_VALUE;
        }
        if (ns > TraceLimits.MAX_TIME_NS || ns < -TraceLimits.MAX_TIME_NS) {
            throw new Unusual("a time past the bound: the reader refuses the trace");
        }
        if (field == TS) {
            tsNs = ns;
        } else if (ns < 0) {
            unusable = true;
            durNs = TraceEvent.NONE;
        } else {
            durNs = ns;
        }
    }

    private void setId(int field, long v) {
        switch (field) {
            case EXTERNAL -> externalId = v;
            case DEVICE -> device = v;
            case DEVICE_TYPE -> deviceType = v;
            case TOTAL_ALLOCATED -> totalAllocated = v;
            case IN_ELEMS -> inElems = v;
            default -> outElems = v;
        }
    }

    /** An id's value ({@link TraceEvent#externalId}'s rule): an integer, or a string holding one; else no value. */
    private long id(int field) {
        byte c = at(i);
        if (c == '"') {
            int from = i + 1;
            int to = text();
            return TraceEvent.wholeNumber(new String(b, from, to - from, StandardCharsets.UTF_8));
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            int from = i;
            numberField0 = field;
            int to = number();
            if (!integral) {
                return TraceEvent.NONE;
            }
            if (to - from > MAX_DIGITS) {
                throw new Unusual("an id that may be past 64 bits");
            }
            return integer(from, to);
        }
        value(2);
        return TraceEvent.NONE;
    }

    /** The integer {@code b[from, to)}: a sign and at most {@link #MAX_DIGITS} digits. */
    private long integer(int from, int to) {
        boolean negative = b[from] == '-';
        long v = 0;
        for (int k = negative ? from + 1 : from; k < to; k++) {
            v = v * 10 + (b[k] - '0');
        }
        return negative ? -v : v;
    }

    /**
     * A field name at {@code depth} in the object whose names start at {@code base}: checked (printable ASCII, no
     * escape; not one of the names before it); which field it is. Where the object's names so far are the path of
     * {@code at} in {@code names} ({@code at >= 0}), a name that is a child of it there was checked when it was added
     * (and is none of the path's names), its kind kept: it is taken by one comparison of its bytes. Any other name is
     * checked here against the path's names (of node {@code -2 - at} where {@code at < -1}: the object's names were that
     * path's, then others) and those kept in {@link #keyFrom} (checked here since), then kept there, and added to
     * {@code names} when on its path. {@link #node} is left at the name's node, or where the object left the names, as
     * {@code at} is given ({@code -1}: no names, as for an object other than an event or its args).
     */
    private int key(int base, int depth, FieldNames names, int at) {
        if (at >= 0 && b[i] == '"') { // small, to be inlined where it is called: the common case
            int known = names.child(at, b, i + 1, lim);
            if (known >= 0) {
                i += names.length(known) + 2;
                node = known;
                return names.kind(known);
            }
        }
        return checkedKey(base, depth, names, at);
    }

    /** {@link #key} of a name not found among the children of {@code at}: checked here. */
    private int checkedKey(int base, int depth, FieldNames names, int at) {
        if (b[i] != '"') {
            throw new Unusual("a field name that is not a string");
        }
        int from = i + 1;
        if (keys == keyFrom.length || keys - base == MAX_KEYS) {
            throw new Unusual("too many fields");
        }
        int to = plainEnd(from);
        if (b[to] != '"') {
            throw new Unusual("a field name of other bytes");
        }
        int n = to - from;
        // its first eight bytes (those it has) and its last eight: what it is compared by
        long first = (long) LONGS.get(b, from) & (n >= 8 ? -1L : (1L << (8 * n)) - 1);
        long last = n > 8 ? (long) LONGS.get(b, to - 8) : 0;
        long mixed = (first ^ Long.rotateLeft(last, 29) ^ n) * 0x9E3779B97F4A7C15L;
        int h = (int) (mixed >>> 32);
        long bit = 1L << (h >>> 26); // the hash's top six bits

        if (at != -1) { // the names of the path the object took
            for (int p = at >= 0 ? at : -2 - at; p != FieldNames.ROOT; p = names.parent(p)) {
                if (names.named(p, b, from, to)) {
                    throw new Unusual("a field twice: the reader refuses the trace");
                }
            }
        }
        if ((seen[depth] & bit) != 0) { // a name before it in this object may be the same: compare
            for (int q = base; q < keys; q++) {
                if (keyHash[q] == h && keyTo[q] - keyFrom[q] == n && Arrays.equals(b, keyFrom[q], keyTo[q], b, from, to)) {
                    throw new Unusual("a field twice: the reader refuses the trace");
                }
            }
        }
        seen[depth] |= bit;
        keyFrom[keys] = from;
        keyTo[keys] = to;
        keyHash[keys] = h;
        keys++;
        i = to + 1;
        int field = field(depth, n, first, last);
        if (at >= 0) {
            int added = names.add(at, b, from, to, h, field);
            node = added >= 0 ? added : -2 - at; // not kept: the object leaves the names at its path so far
            if (added >= 0) {
                keys--; // on the path: not kept twice
            }
        } else {
            node = at;
        }
        return field;
    }

    /** Which field of the object at {@code depth} a name of {@code n} bytes is, by its first and last eight bytes. */
    private static int field(int depth, int n, long first, long last) {
        if (depth == 1) {
            return switch (n) { // the name's bytes as words, against the names' (constants once the class is loaded)
                case 2 -> first == PH_W ? PH : first == TS_W ? TS : OTHER;
                case 3 -> first == CAT_W ? CAT : first == PID_W ? PID : first == TID_W ? TID : first == DUR_W ? DUR : OTHER;
                case 4 -> first == NAME_W ? NAME : first == ARGS_W ? ARGS : OTHER;
                default -> OTHER;
            };
        }
        if (depth == 2) {
            return switch (n) {
                case 5 -> first == DTYPE_W ? DTYPE : OTHER;
                case 6 -> first == DEVICE_W ? DEVICE : OTHER;
                case 8 -> first == IN_DEVICE_W ? DEVICE : OTHER;
                case 9, 11, 13, 14, 15 -> {
                    for (Name x : ARG) {
                        if (x.is(n, first, last)) {
                            yield x.field;
                        }
                    }
                    yield OTHER;
                }
                default -> OTHER;
            };
        }
        return OTHER;
    }

    /**
     * Where the run of printable ASCII other than a quote or a backslash that starts at {@code k} ends: eight bytes at
     * a time (the bytes after the 0 that ends the scan are there to be read, and never looked at).
     */
    private int plainEnd(int k) {
        while (true) {
            long x = (long) LONGS.get(b, k);
            long quote = x ^ 0x2222222222222222L;
            long backslash = x ^ 0x5C5C5C5C5C5C5C5CL;
            // per byte, its top bit where the byte is a quote, a backslash, under 0x20, or past 0x7F: exact for the first
            long stops = ((quote - ONES) & ~quote | (backslash - ONES) & ~backslash | (x - 0x2020202020202020L) & ~x | x) & HIGHS;
            if (stops != 0) {
                return k + (Long.numberOfTrailingZeros(stops) >>> 3);
            }
            k += 8;
        }
    }

    /** A field name the summary reads, as {@link #key} compares names: its length, its first and last eight bytes. */
    private record Name(int length, long first, long last, int field) {
        Name(String name, int field) {
            this(name.length(), word(name, 0), name.length() > 8 ? word(name, name.length() - 8) : 0, field);
        }

        boolean is(int n, long f, long l) {
            return n == length && f == first && l == last;
        }

        /** The (up to) eight bytes of {@code s} from {@code at}, little-endian, as {@link #LONGS} reads them. */
        static long word(String s, int at) {
            long w = 0;
            for (int k = Math.min(s.length(), at + 8) - 1; k >= at; k--) {
                w = w << 8 | (s.charAt(k) & 0xff);
            }
            return w;
        }
    }

    // the event's fields the summary reads ({@code TraceReader}'s names), as words
    private static final long PH_W = Name.word("ph", 0);
    private static final long TS_W = Name.word("ts", 0);
    private static final long CAT_W = Name.word("cat", 0);
    private static final long PID_W = Name.word("pid", 0);
    private static final long TID_W = Name.word("tid", 0);
    private static final long DUR_W = Name.word("dur", 0);
    private static final long NAME_W = Name.word("name", 0);
    private static final long ARGS_W = Name.word("args", 0);
    // the fields of its args the summary reads: the short ones as words, the long ones by length and words
    private static final long DTYPE_W = Name.word("dtype", 0);
    private static final long DEVICE_W = Name.word("device", 0);
    private static final long IN_DEVICE_W = Name.word("inDevice", 0);
    private static final Name[] ARG = {new Name(TraceEvent.EXTERNAL_ID, EXTERNAL), new Name(TraceEvent.EXTERNAL_ID_2021, EXTERNAL),
        new Name("Device Id", DEVICE), new Name("Device Type", DEVICE_TYPE), new Name("Total Allocated", TOTAL_ALLOCATED),
        new Name("In msg nelems", IN_ELEMS), new Name("Out msg nelems", OUT_ELEMS)};

    /** Any value inside the container at {@code depth}, checked and passed over. */
    private void value(int depth) {
        byte c = at(i);
        if (c == '"') {
            i = string();
        } else if (c == '{' || c == '[') {
            if (depth + 1 > MAX_DEPTH) {
                throw new Unusual("deep");
            }
            container(c, depth + 1);
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            number();
        } else if (c == 't' || c == 'f' || c == 'n') {
            literal();
        } else {
            throw new Unusual("not a value");
        }
    }

    private void container(byte open, int depth) {
        i++;
        white();
        byte close = open == '{' ? (byte) '}' : (byte) ']';
        if (at(i) == close) {
            i++;
            return;
        }
        int base = keys;
        seen[depth] = 0;
        while (true) {
            if (open == '{') {
                key(base, depth, null, -1);
                white();
                expect((byte) ':');
                white();
            }
            value(depth);
            if (!another(close)) {
                keys = base;
                return;
            }
        }
    }

    private void literal() {
        int end = JsonGrammar.literal(b, i, lim);
        if (end < 0) {
            throw new Unusual("not a literal");
        }
        i = end;
    }

    /**
     * Passes over the JSON number at {@code i} ({@link JsonGrammar#number}'s grammar and bound) and returns its end; the
     * next byte is the caller's to judge. Its digits are found eight at a time (the 0 after the bytes ends them); a number
     * with an exponent is left to {@link JsonGrammar#number}.
     */
    private int number() {
        int from = i;
        int field = numberField0;
        numberField0 = OTHER;
        int end = numberEnd();
        if (numbers < EventForms.MAX_NUMBERS) {
            numberFrom[numbers] = from;
            numberTo[numbers] = end;
            numberField[numbers] = field;
        } else {
            formless = true;
        }
        numbers++;
        return end;
    }

    /** {@link #number}'s grammar: passes over the number at {@code i} and returns its end. */
    private int numberEnd() {
        int k = i;
        if (b[k] == '-') {
            k++;
        }
        byte c = b[k];
        if (c == '0') {
            k++;
        } else if (c >= '1' && c <= '9') {
            k = digitsEnd(k + 1);
        } else {
            throw new Unusual("not a number of the common form");
        }
        boolean point = false;
        c = b[k];
        if (c == '.') {
            c = b[k + 1];
            if (c < '0' || c > '9') {
                throw new Unusual("not a number of the common form");
            }
            k = digitsEnd(k + 2);
            point = true;
            c = b[k];
        }
        if (c == 'e' || c == 'E') {
            return exponentNumber();
        }
        if (k - i > MAX_NUMBER) {
            throw new Unusual("not a number of the common form");
        }
        integral = !point;
        i = k;
        return k;
    }

    /** Where the digits from {@code k} end, eight bytes at a time (the 0 after the bytes is no digit). */
    private int digitsEnd(int k) {
        while (true) {
            long x = (long) LONGS.get(b, k);
            // per byte, its top bit where the byte is not '0' to '9': exact for the first such byte (those before it are digits)
            long other = ((x + 0x4646464646464646L) | (x - 0x3030303030303030L)) & HIGHS;
            if (other != 0) {
                return k + (Long.numberOfTrailingZeros(other) >>> 3);
            }
            k += 8;
        }
    }

    /** {@link #number} of a number with an exponent, by {@link JsonGrammar#number}. */
    private int exponentNumber() {
        long r = JsonGrammar.number(b, i, lim);
        if (r < 0) {
            throw new Unusual("not a number of the common form");
        }
        integral = JsonGrammar.integral(r);
        i = JsonGrammar.end(r);
        return i;
    }

    /** A string the summary reads as text, at {@code i}: passed over; the end of its bytes (its closing quote). */
    private int text() {
        i = string();
        if (escaped) {
            throw new Unusual("an escape in a text the summary reads");
        }
        return i - 1;
    }

    /**
     * The offset after the closing quote of the string at {@code i}, its bytes checked as {@link JsonGrammar#character}
     * checks them, every escape taken ({@link #escaped} says whether it had one).
     */
    private int string() {
        int k = i + 1;
        escaped = false;
        while (true) {
            k = plainEnd(k);
            byte c = b[k];
            if (c == '"') {
                return k + 1;
            }
            if (c == '\\') {
                escaped = true;
            }
            k = JsonGrammar.character(b, k, lim, true);
            if (k < 0) {
                throw new Unusual("a control, an escape, four bytes of UTF-8, or no UTF-8");
            }
        }
    }
}
