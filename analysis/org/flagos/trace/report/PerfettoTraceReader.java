package org.flagos.trace.report;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.tracefile.TraceFormatException;
import org.flagos.trace.tracefile.TraceLimits;

/**
 * flagtrace's own {@code .pftrace} (Perfetto's protobuf {@code Trace}: a sequence of length-prefixed
 * {@code TracePacket}s, as {@code PerfettoProtoSink} writes it) as summary input, read packet by
 * packet: interned names and categories, track descriptors (host threads, and device streams as
 * {@code stream S} under {@code GPU D}), and slices whose begin and end become one complete event
 * for {@link TraceFile.Reader}, with the same pid, tid, name, category, times (ns) and External
 * id as in the JSON trace of the same capture. Field numbers are Perfetto's, as documented in its
 * protos.
 *
 * <p>Held to the JSON reader's bounds ({@link TraceLimits}) and words: a packet is one event
 * ({@link TraceLimits#MAX_PACKET_BYTES}, refused from its length before a byte of it is read), a
 * timestamp is a time ({@link TraceLimits#MAX_TIME_NS}), tracks and open slices are counted
 * ({@link TraceLimits#MAX_TRACKS}, {@link TraceLimits#MAX_OPEN_SLICES}), names are the summary's
 * ({@link KeyAveragesBuilder#MAX_NAMES}); every length inside a packet is checked against the packet
 * and every field's wire type against what the field holds. A fault is one
 * {@link TraceFormatException}, "PATH is not a trace: ..." naming the packet by its byte offset (in
 * the gunzipped stream), or "PATH ends in the middle of a packet (truncated?) at byte N". A slice
 * ended without a begin, or begun and never ended, is counted as invalid, never dropped silently.
 */
final class PerfettoTraceReader {
    private static final int TRACE_PACKET = 1;
    private static final int WIRE_VARINT = 0;
    private static final int WIRE_LENGTH = 2;
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
    /** Bytes of the (gunzipped) stream read so far, and where the packet being read starts. */
    private long offset;
    private long packetAt;

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
            packetAt = offset;
            long tag = varint(in, true);
            if (tag < 0) {
                break;
            }
            if (tag != (TRACE_PACKET << 3 | WIRE_LENGTH)) {
                throw notATrace("field " + (tag >>> 3) + " of wire type " + (tag & 7) + " at byte " + packetAt
                        + " where a packet belongs");
            }
            long len = varint(in, false);
            if (Long.compareUnsigned(len, TraceLimits.MAX_PACKET_BYTES) > 0) { // a 10-byte varint may read as negative
                throw notATrace("the packet at byte " + packetAt + " is longer than " + TraceLimits.MAX_PACKET_BYTES
                        + " bytes (it says " + Long.toUnsignedString(len) + ")");
            }
            byte[] packet = in.readNBytes((int) len); // read in chunks: a length the file does not hold allocates no more than it holds
            offset += packet.length;
            if (packet.length != len) {
                throw cut();
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
                throw cut();
            }
            offset++;
            v |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
        }
        throw notATrace("a number at byte " + packetAt + " runs past 10 bytes");
    }

    private TraceFormatException cut() {
        return new TraceFormatException(sink.path + " ends in the middle of a packet (truncated?) at byte " + offset);
    }

    private TraceFormatException notATrace(String why) {
        return new TraceFormatException(sink.path + " is not a trace: " + why);
    }

    /** The fault of the packet being read, in the words every fault of a packet has. */
    private TraceFormatException badPacket(String why) {
        return notATrace("the packet at byte " + packetAt + " " + why);
    }

    private void packet(Msg m) throws IOException {
        long ts = Long.MIN_VALUE;
        Msg event = null;
        while (m.more()) {
            int field = m.field();
            switch (field) {
                case PACKET_TIMESTAMP: ts = time(m.number()); break;
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
                    iid = entry.number();
                } else if (f == 2) {
                    name = entry.string();
                } else {
                    entry.skip();
                }
            }
            if (namedChars + name.length() > KeyAveragesBuilder.MAX_NAME_CHARS
                    || !into.containsKey(iid) && into.size() == KeyAveragesBuilder.MAX_NAMES) {
                throw KeyAveragesBuilder.tooManyNames();
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
                uuid = m.number();
            } else if (field == 2) {
                name = m.string();
            } else if (field == 5) {
                parent = m.number();
            } else if (field == 3 || field == 4) { // process: pid 1; thread: pid 1, tid 2
                Msg p = m.message();
                while (p.more()) {
                    int f = p.field();
                    if (f == 1) {
                        pid = Long.toString((int) p.number()); // int32, as protobuf reads one
                    } else if (f == 2 && field == 4) {
                        tid = Long.toString((int) p.number());
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
            if (tracks.size() == TraceLimits.MAX_TRACKS) {
                throw new TraceLimitException("holds more than " + TraceLimits.MAX_TRACKS + " tracks (threads, devices and streams)");
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
                case EVENT_TYPE: type = m.number(); break;
                case EVENT_TRACK_UUID: uuid = m.number(); break;
                case EVENT_CATEGORY_IIDS: category = m.number(); break;
                case EVENT_NAME_IID: name = m.number(); break;
                case EVENT_DEBUG_ANNOTATIONS: external = externalId(m.message(), external); break;
                default: m.skip();
            }
        }
        Track t = track(uuid);
        if (type == TYPE_SLICE_BEGIN) {
            if (t.open.size() == KeyAveragesBuilder.MAX_DEPTH) {
                throw KeyAveragesBuilder.tooDeep();
            }
            if (open == TraceLimits.MAX_OPEN_SLICES) {
                throw new TraceLimitException("holds more than " + TraceLimits.MAX_OPEN_SLICES + " slices begun and not yet ended");
            }
            open++;
            t.open.add(new long[] {ts, name, category, external});
        } else if (type == TYPE_SLICE_END && t.open.isEmpty()) {
            sink.invalid++; // an end without its begin
        } else if (type == TYPE_SLICE_END) {
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

    /** A packet's timestamp (uint64 ns): past {@link TraceLimits#MAX_TIME_NS} it refuses the file, as a JSON event's ts does. */
    private long time(long ns) throws TraceFormatException {
        if (Long.compareUnsigned(ns, TraceLimits.MAX_TIME_NS) > 0) {
            throw badPacket("has a timestamp of " + Long.toUnsignedString(ns) + " ns, beyond ±" + TraceLimits.MAX_TIME_NS + " ns");
        }
        return ns;
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
                key = a.number();
            } else if (field == 3 || field == 4) {
                v = a.number();
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
            if (tag >>> 3 == 0 || tag >>> 3 > 536_870_911L) {
                throw badPacket("has a field numbered " + (tag >>> 3) + ", which protobuf has not");
            }
            return (int) (tag >>> 3);
        }

        /** The value of a field that holds a number (wire type 0). */
        long number() throws IOException {
            if (wire != WIRE_VARINT) {
                throw wrongWire("a number");
            }
            return varint();
        }

        private long varint() throws IOException {
            long v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                if (at >= end) {
                    throw pastEnd();
                }
                int x = b[at++];
                v |= (long) (x & 0x7f) << shift;
                if ((x & 0x80) == 0) {
                    return v;
                }
            }
            throw badPacket("has a number that runs past 10 bytes");
        }

        /** The value of a field that holds a message (wire type 2), checked to lie inside this one. */
        Msg message() throws IOException {
            if (wire != WIRE_LENGTH) {
                throw wrongWire("a message");
            }
            long len = varint();
            if (Long.compareUnsigned(len, end - at) > 0) {
                throw badPacket("has a field of " + Long.toUnsignedString(len) + " bytes where " + (end - at) + " are left");
            }
            Msg m = new Msg(b, at, at + (int) len);
            at += (int) len;
            return m;
        }

        String string() throws IOException {
            if (wire != WIRE_LENGTH) {
                throw wrongWire("a string");
            }
            Msg m = message();
            return new String(b, m.at, m.end - m.at, StandardCharsets.UTF_8);
        }

        void skip() throws IOException {
            switch (wire) {
                case 0: varint(); break;
                case 1: advance(8); break;
                case 2: message(); break;
                case 5: advance(4); break;
                default: throw badPacket("has a field of wire type " + wire + ", which no trace uses");
            }
        }

        private void advance(int n) throws IOException {
            if (end - at < n) {
                throw pastEnd();
            }
            at += n;
        }

        private TraceFormatException wrongWire(String what) {
            return badPacket("has wire type " + wire + " where " + what + " belongs");
        }

        private TraceFormatException pastEnd() {
            return badPacket("has a field that runs past its end");
        }
    }
}
