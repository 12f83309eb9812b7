package org.flagos.trace.merge;

import java.io.IOException;
import java.io.InputStream;

/**
 * A trace's bytes with the events of its {@code traceEvents} array taken out: what it passes on is the document with
 * that array empty ({@code "traceEvents":[]}), for the one trace reader to read the rest (the top level and its blocks)
 * by its rules; each event taken is scanned by {@link EventScan} and handed to a {@link Sink} as it is read.
 * Merge's fast path ({@link InputCopy#read}): a document whose top level is not an object, or that it cannot follow,
 * throws {@link EventScan.Unusual}, as does an event {@link EventScan} does not take.
 */
final class EventsCut extends InputStream {
    /** What is done with each event taken. */
    interface Sink {
        /** The event {@code scan} holds, whose {@code '{'} is on line {@code line}, at byte {@code offset} of the stream. */
        void event(EventScan scan, int line, long offset) throws IOException;
    }

    private static final byte[] TRACE_EVENTS = "traceEvents".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final InputStream in;
    private final EventScan scan;
    private final Sink sink;
    private final byte[] buf = new byte[1 << 20];
    private int pos;
    private int end;
    /** The stream's offset of {@code buf[0]}. */
    private long base;
    private boolean eof;

    /** The reader's line count: lines begun so far (1-based), {@code \r\n} one line. */
    private int line = 1;
    private boolean started;
    private int depth;
    private boolean inString;
    private boolean escape;
    private boolean stringIsKey;
    private boolean expectKey;
    /** How much of {@code traceEvents} the key being read matches; -1: none. */
    private int match = -1;
    private boolean keyIsEvents;
    private boolean afterEventsColon;
    private boolean lastCr;
    private boolean cut;
    private boolean closePending;

    EventsCut(InputStream in, Sink sink) {
        this(in, sink, false);
    }

    /** @param spans whether events' text is wanted only where their bytes as read are not it ({@link EventScan#EventScan(boolean)}) */
    EventsCut(InputStream in, Sink sink, boolean spans) {
        this.in = in;
        this.sink = sink;
        this.scan = new EventScan(spans);
    }

    /** Whether the events array was found and taken. */
    boolean cut() {
        return cut;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] dst, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        int n = 0;
        while (n < len) {
            if (closePending) {
                closePending = false;
                dst[off + n++] = ']';
                follow((byte) ']');
                continue;
            }
            if (pos == end) {
                if (n > 0 || !fill()) {
                    break;
                }
            }
            byte c = buf[pos++];
            dst[off + n++] = c;
            if (follow(c)) {
                events();
                closePending = true;
            }
        }
        return n == 0 ? -1 : n;
    }

    /** Reads more after what is held; false at the end of the stream. */
    private boolean fill() throws IOException {
        if (eof) {
            return false;
        }
        if (pos == end) {
            base += end;
            pos = 0;
            end = 0;
        }
        int r = in.read(buf, end, buf.length - end);
        if (r < 0) {
            eof = true;
            return false;
        }
        end += r;
        return true;
    }

    /** Follows one byte outside the events; true when it opens the {@code traceEvents} array of the top-level object. */
    private boolean follow(byte c) {
        if (c == '\n') {
            if (!lastCr) {
                line++;
            }
            lastCr = false;
        } else {
            if (c == '\r') {
                line++;
            }
            lastCr = c == '\r';
        }
        if (inString) {
            if (escape) {
                escape = false;
            } else if (c == '\\') {
                escape = true;
                match = -1;
            } else if (c == '"') {
                inString = false;
                keyIsEvents = stringIsKey && match == TRACE_EVENTS.length;
            } else if (match >= 0) {
                match = match < TRACE_EVENTS.length && c == TRACE_EVENTS[match] ? match + 1 : -1;
            }
            return false;
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            return false;
        }
        if (!started) {
            started = true;
            if (c != '{') {
                throw new EventScan.Unusual("a top level that is not an object");
            }
        }
        boolean wasKey = keyIsEvents;
        boolean wasColon = afterEventsColon;
        keyIsEvents = false;
        afterEventsColon = false;
        switch (c) {
            case '"' -> {
                inString = true;
                stringIsKey = depth == 1 && expectKey;
                match = stringIsKey ? 0 : -1;
                expectKey = false;
            }
            case '{' -> {
                depth++;
                expectKey = depth == 1;
            }
            case '[' -> {
                depth++;
                if (depth == 2 && wasColon) {
                    if (cut) {
                        throw new EventScan.Unusual("two traceEvents arrays");
                    }
                    cut = true;
                    return true;
                }
            }
            case '}', ']' -> depth--;
            case ':' -> afterEventsColon = depth == 1 && wasKey;
            case ',' -> expectKey = depth == 1;
            default -> {
                if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c == '-' || c == '+' || c == '.' || c == 'E')) {
                    throw new EventScan.Unusual("a byte outside strings that JSON of UTF-8 has not there");
                }
            }
        }
        return false;
    }

    /** Takes the events, from after the array's {@code '['} to its {@code ']'}. */
    private void events() throws IOException {
        white();
        if (need(0) == ']') {
            pos++;
            return;
        }
        while (event()) {
            // one method per event: the loop around it stays small for the JIT
        }
    }

    /** Takes one event and what follows it; false after the array's {@code ']'}. */
    private boolean event() throws IOException {
        if (need(0) != '{') {
            throw new EventScan.Unusual("no event object");
        }
        int at = line;
        int next;
        int first;
        while (true) {
            try {
                first = pos;
                next = scan.scan(buf, pos, end);
                break;
            } catch (EventScan.Unusual u) {
                if (u != EventScan.MORE || !more()) {
                    throw u;
                }
            }
        }
        pos = next;
        line += scan.lines;
        sink.event(scan, at, base + first);
        white();
        byte c = need(0);
        pos++;
        if (c == ']') {
            return false;
        }
        if (c != ',') {
            throw new EventScan.Unusual("no comma between events");
        }
        white();
        return true;
    }

    /** Keeps what is held from {@code pos} at the buffer's start and reads more; false when none comes or none fits. */
    private boolean more() throws IOException {
        if (pos > 0) {
            base += pos;
            System.arraycopy(buf, pos, buf, 0, end - pos);
            end -= pos;
            pos = 0;
        }
        if (end == buf.length) {
            return false; // one event the size of the buffer: the reader's to judge
        }
        return fill();
    }

    /** The byte {@code k} past {@code pos}, read if need be. */
    private byte need(int k) throws IOException {
        while (pos + k >= end) {
            if (!more()) {
                throw new EventScan.Unusual("the events end early");
            }
        }
        return buf[pos + k];
    }

    private void white() throws IOException {
        while (true) {
            byte c = need(0);
            if (c == ' ' || c == '\t') {
                pos++;
            } else if (c == '\n') {
                line++;
                pos++;
            } else if (c == '\r') {
                if (need(1) == '\n') {
                    pos++;
                }
                line++;
                pos++;
            } else {
                return;
            }
        }
    }
}
