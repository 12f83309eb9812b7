package org.flagos.trace.report;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.tracefile.TraceFormatException;

/**
 * flagtrace's own {@code .pftrace} (Perfetto's protobuf {@code Trace}: a sequence of length-prefixed
 * {@code TracePacket}s, as {@code PerfettoProtoSink} writes it) as summary input, read packet by
 * packet: interned names and categories, track descriptors (host threads, and device streams as
 * {@code stream S} under {@code GPU D}), and slices whose begin and end become one complete event
 * for {@link TraceFile.Reader}, with the same pid, tid, name, category, times (ns) and External
 * id as in the JSON trace of the same capture. Field numbers are Perfetto's, as documented in its
 * protos. Every size read from the file is checked before it sizes anything.
 */
final class PerfettoTraceReader {
    /** Bytes of one packet at most. */
    static final int MAX_PACKET = 64 << 20;
    /** Interned strings, and tracks, at most. */
    static final int MAX_INTERNED = 1 << 19;
    static final int MAX_TRACKS = 1 << 16;
    /** Slices begun and not yet ended, over all tracks, at most. */
    static final int MAX_OPEN = 1 << 18;

    private static final int TRACE_PACKET = 1;
    private static final int PACKET_TIMESTAMP = 8;
    private static final int PACKET_TRACK_EVENT = 11;
    private static final int PACKET_INTERNED_DATA = 12;
    private static final int PACKET_TRACK_DESCRIPTOR = 60;
    private static final int INTERNED_CATEGORIES = 1;
    private static final int INTERNED_NAMES = 2;
    private static final int INTERNED_ANNOTATION_NAMES = 3;
    private static final int EVENT_CATEGORY_IIDS = 3;
    private static final int EVENT_DEBUG_ANNOTATIONS = 4;
    private static final int EVENT_TYPE = 9;
    private static final int EVENT_NAME_IID = 10;
    private static final int EVENT_TRACK_UUID = 11;
    private static final int TYPE_SLICE_BEGIN = 1;
    private static final int TYPE_SLICE_END = 2;

    private final TraceFile.Reader sink;
    private final Map<Long, String> categories = new HashMap<>();
    private final Map<Long, String> names = new HashMap<>();
    private final Map<Long, String> annotations = new HashMap<>();
    private final Map<Long, Track> tracks = new HashMap<>();
    private long namedChars;
    private int open;

    /** A track: its row as the JSON trace writes it, and its open slices. */
    private static final class Track {
        String pid = "";
        String tid = "";
        String label = "";
        long parent = -1;
        final List<long[]> open = new ArrayList<>(); // start, name iid, category iid, External id
    }

    PerfettoTraceReader(TraceFile.Reader sink) {
        this.sink = sink;
    }

    void read(InputStream in) throws IOException {
        while (true) {
            long tag = varint(in, true);
            if (tag < 0) {
                break;
            }
            if (tag != (TRACE_PACKET << 3 | 2)) {
                throw new TraceFormatException(sink.path + " is not a Perfetto trace flagtrace can read (field "
                        + (tag >>> 3) + " where a packet belongs)");
            }
            long len = varint(in, false);
            if (len < 0 || len > MAX_PACKET) { // a 10-byte varint may read as negative
                throw new TraceFormatException(sink.path + " holds a packet of " + Long.toUnsignedString(len) + " bytes, over the "
                        + MAX_PACKET + " a packet may have");
            }
            byte[] packet = in.readNBytes((int) len);
            if (packet.length != len) {
                throw new TraceFormatException(sink.path + " ends in the middle of a packet (truncated?)");
            }
            packet(new Msg(packet, 0, packet.length));
        }
        for (Track t : tracks.values()) {
            sink.invalid += t.open.size(); // begun, never ended
        }
    }

    private long varint(InputStream in, boolean atPacketStart) throws IOException {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = in.read();
            if (b < 0) {
                if (atPacketStart && shift == 0) {
                    return -1;
                }
                throw new TraceFormatException(sink.path + " ends in the middle of a packet (truncated?)");
            }
            v |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
        }
        throw new TraceFormatException(sink.path + " is not a Perfetto trace: a number runs past 10 bytes");
    }

    private void packet(Msg m) throws IOException {
        long ts = Long.MIN_VALUE;
        Msg event = null;
        while (m.more()) {
            int field = m.field();
            switch (field) {
                case PACKET_TIMESTAMP: ts = m.varint(); break;
                case PACKET_INTERNED_DATA: interned(m.message()); break;
                case PACKET_TRACK_DESCRIPTOR: descriptor(m.message()); break;
                case PACKET_TRACK_EVENT: event = m.message(); break;
                default: m.skip();
            }
        }
        if (event != null) {
            trackEvent(event, ts);
        }
    }

    private void interned(Msg m) throws IOException {
        while (m.more()) {
            int field = m.field();
            Map<Long, String> into = field == INTERNED_CATEGORIES ? categories : field == INTERNED_NAMES ? names
                    : field == INTERNED_ANNOTATION_NAMES ? annotations : null;
            if (into == null) {
                m.skip();
                continue;
            }
            Msg entry = m.message();
            long iid = 0;
            String name = "";
            while (entry.more()) {
                int f = entry.field();
                if (f == 1) {
                    iid = entry.varint();
                } else if (f == 2) {
                    name = entry.string();
                } else {
                    entry.skip();
                }
            }
            if (!into.containsKey(iid) && (into.size() == MAX_INTERNED || namedChars + name.length() > KeyAveragesBuilder.MAX_NAME_CHARS)) {
                throw new TraceLimitException("interns more than " + MAX_INTERNED + " names");
            }
            namedChars += name.length();
            into.put(iid, name);
        }
    }

    private void descriptor(Msg m) throws IOException {
        long uuid = -1;
        long parent = -1;
        String name = null;
        String pid = null;
        String tid = null;
        while (m.more()) {
            int field = m.field();
            if (field == 1) {
                uuid = m.varint();
            } else if (field == 2) {
                name = m.string();
            } else if (field == 5) {
                parent = m.varint();
            } else if (field == 3 || field == 4) { // process: pid 1; thread: pid 1, tid 2
                Msg p = m.message();
                while (p.more()) {
                    int f = p.field();
                    if (f == 1) {
                        pid = Long.toString((int) p.varint());
                    } else if (f == 2 && field == 4) {
                        tid = Long.toString((int) p.varint());
                    } else {
                        p.skip();
                    }
                }
            } else {
                m.skip();
            }
        }
        Track t = track(uuid);
        t.parent = parent;
        if (name != null) {
            t.label = name;
        }
        if (pid != null) {
            t.pid = pid;
        }
        if (tid != null) {
            t.tid = tid;
        }
        if (tid == null && name != null) { // a named track: a device stream, or a thread without 32-bit ids
            Track p = tracks.get(parent);
            if (name.startsWith("stream ") && p != null && p.label.startsWith("GPU ")) {
                t.pid = p.label.substring(4);
                t.tid = name.substring(7);
            } else if (t.tid.isEmpty()) {
                // A host thread without 32-bit ids: its first name is its id. The track is named
                // again when the thread's own name arrives ("main"); its slices stay one thread.
                t.pid = p != null ? p.pid : "";
                t.tid = name;
            }
        }
    }

    private Track track(long uuid) throws TraceLimitException {
        Track t = tracks.get(uuid);
        if (t == null) {
            if (tracks.size() == MAX_TRACKS) {
                throw new TraceLimitException("holds more than " + MAX_TRACKS + " tracks");
            }
            t = new Track();
            tracks.put(uuid, t);
        }
        return t;
    }

    private void trackEvent(Msg m, long ts) throws IOException {
        long type = 0;
        long uuid = -1;
        long category = -1;
        long name = -1;
        long external = KeyAveragesBuilder.NO_LINK;
        while (m.more()) {
            int field = m.field();
            switch (field) {
                case EVENT_TYPE: type = m.varint(); break;
                case EVENT_TRACK_UUID: uuid = m.varint(); break;
                case EVENT_CATEGORY_IIDS: category = m.varint(); break;
                case EVENT_NAME_IID: name = m.varint(); break;
                case EVENT_DEBUG_ANNOTATIONS: external = externalId(m.message(), external); break;
                default: m.skip();
            }
        }
        Track t = track(uuid);
        if (type == TYPE_SLICE_BEGIN) {
            if (t.open.size() == KeyAveragesBuilder.MAX_DEPTH) {
                throw KeyAveragesBuilder.tooDeep();
            }
            if (open == MAX_OPEN) {
                throw new TraceLimitException("holds more than " + MAX_OPEN + " slices begun and not yet ended");
            }
            open++;
            t.open.add(new long[] {ts, name, category, external});
        } else if (type == TYPE_SLICE_END && !t.open.isEmpty()) {
            long[] b = t.open.remove(t.open.size() - 1);
            open--;
            String n = names.get(b[1]);
            if (n == null || b[0] == Long.MIN_VALUE || ts == Long.MIN_VALUE || ts < b[0]) {
                sink.invalid++;
                return;
            }
            sink.slice(categories.get(b[2]), n, t.pid, t.tid, b[0], ts - b[0], b[3]);
        }
    }

    /** The External id when {@code a} is that annotation, else {@code current}. */
    private long externalId(Msg a, long current) throws IOException {
        long key = -1;
        long value = current;
        boolean number = false;
        long v = 0;
        while (a.more()) {
            int field = a.field();
            if (field == 1) {
                key = a.varint();
            } else if (field == 3 || field == 4) {
                v = a.varint();
                number = true;
            } else {
                a.skip();
            }
        }
        if (number && "External id".equals(annotations.get(key))) {
            value = v;
        }
        return value;
    }

    /** A protobuf message in a byte array, read field by field. */
    private final class Msg {
        final byte[] b;
        int at;
        final int end;
        int wire;

        Msg(byte[] b, int from, int end) {
            this.b = b;
            this.at = from;
            this.end = end;
        }

        boolean more() {
            return at < end;
        }

        int field() throws IOException {
            long tag = varint();
            wire = (int) (tag & 7);
            return (int) (tag >>> 3);
        }

        long varint() throws IOException {
            long v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                if (at >= end) {
                    throw damaged();
                }
                int x = b[at++];
                v |= (long) (x & 0x7f) << shift;
                if ((x & 0x80) == 0) {
                    return v;
                }
            }
            throw damaged();
        }

        Msg message() throws IOException {
            if (wire != 2) {
                throw damaged();
            }
            long len = varint();
            if (len < 0 || len > end - at) {
                throw damaged();
            }
            Msg m = new Msg(b, at, at + (int) len);
            at += (int) len;
            return m;
        }

        String string() throws IOException {
            Msg m = message();
            return new String(b, m.at, m.end - m.at, StandardCharsets.UTF_8);
        }

        void skip() throws IOException {
            switch (wire) {
                case 0: varint(); break;
                case 1: advance(8); break;
                case 2: message(); break;
                case 5: advance(4); break;
                default: throw damaged();
            }
        }

        private void advance(int n) throws IOException {
            if (end - at < n) {
                throw damaged();
            }
            at += n;
        }

        private TraceFormatException damaged() {
            return new TraceFormatException(sink.path + " is not a whole Perfetto trace: a packet's fields run past its end");
        }
    }
}
