package org.flagos.trace.encoders;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;
import org.flagos.trace.capture.AtomicOutput;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.capture.TraceFormat;
import org.flagos.trace.cli.TestDevices;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.ingest.OpsJsonlReader;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The {@code .pftrace} output read back with a protobuf reader written here, independently of the
 * writer and of Perfetto: every packet, against the JSON trace of the same capture. Runs where Node
 * is missing (PerfettoTraceProcessorTest, in viewer/, loads the same files in Perfetto's own trace
 * processor).
 */
class PerfettoTraceDecodeTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"h200-app", "h200-mt4", "h200-java-parity"})
    void everyPacketDecodesAndMatchesTheJsonTrace(String name) throws IOException, InterruptedException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CaptureReplay.Result result = CaptureReplay.run(request(name).withFormat(TraceFormat.PERFETTO), out);
        Decoded d = Decoded.of(out.toByteArray());
        JsonNode json = TraceJson.replay(name).trace();

        Map<String, Long> categories = new TreeMap<>();
        long args = 0;
        Set<Long> flows = new HashSet<>();
        for (JsonNode e : json.get("traceEvents")) {
            String ph = e.path("ph").asText();
            if (ph.equals("X")) {
                categories.merge(e.get("cat").asText(), 1L, Long::sum);
                args += leaves(e.path("args"));
            } else if (ph.equals("s")) {
                flows.add(e.get("id").asLong());
            }
        }
        assertEquals(categories, d.categories, name + ": slices per category");
        assertEquals(result.traceEvents(), d.slices, name + ": the writer's count of what the file holds");
        assertEquals(result.traceEvents() - d.categories.getOrDefault("Trace", 0L), result.events(), name + ": less the capture span");
        assertEquals(args, d.args, name + ": args");
        Set<Long> joined = new HashSet<>(d.flowStarts);
        joined.retainAll(d.flowEnds);
        assertEquals(flows, joined, name + ": flow ids on both a launch and its device work = the JSON's arrows");
        assertEquals(d.flowEnds.size(), d.flowEndsWithOwnCorrelation, name + ": a device slice's flow id is its correlation");
    }

    private static CaptureReplay.Request request(String name) {
        return CaptureReplay.Request.of(CaptureBytes.load(Captures.capture(name)), name)
                .ops(OpsJsonlReader.read(Captures.ops(name))).kernelNames(KernelNameFile.read(Captures.names(name)))
                .devices(TestDevices.h200()).ringSize(1 << 12).build();
    }

    private static long leaves(JsonNode node) {
        if (node.isMissingNode()) {
            return 0;
        }
        if (node.isContainerNode()) {
            long n = 0;
            for (JsonNode child : node) {
                n += leaves(child);
            }
            return n;
        }
        return 1;
    }

    @Test
    void theFileNameChoosesTheFormat() throws IOException {
        assertEquals(TraceFormat.PERFETTO, TraceFormat.of(Path.of("a/trace.pftrace")));
        assertEquals(TraceFormat.PERFETTO, TraceFormat.of(Path.of("trace.pftrace.gz")));
        assertEquals(TraceFormat.JSON, TraceFormat.of(Path.of("trace.json")));
        assertEquals(TraceFormat.JSON, TraceFormat.of(Path.of("trace.pftrace.json")));
        for (String file : List.of("t.pftrace", "t.pftrace.gz", "t.json")) {
            Path target = dir.resolve(file);
            try (AtomicOutput out = new AtomicOutput(target)) {
                CaptureReplay.run(request("h200-app").withFormat(TraceFormat.of(target)), out.stream());
                out.commit();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            byte[] bytes = Files.readAllBytes(target);
            if (file.endsWith(".gz")) {
                try (InputStream in = new GZIPInputStream(Files.newInputStream(target))) {
                    bytes = in.readAllBytes();
                }
            }
            if (file.contains(".pftrace")) {
                assertEquals(301, Decoded.of(bytes).slices, file); // 281 and h200-app's 20 GPU annotations
            } else {
                assertEquals('{', bytes[0], file);
            }
        }
    }

    @Test
    void nestedMessagesOfEveryLengthEncodeTheirLength() {
        for (int length : new int[] {0, 1, 127, 128, 300, 16_383, 16_384, 70_000}) {
            ProtoBuffer buf = new ProtoBuffer();
            byte[] body = new byte[length];
            for (int i = 0; i < length; i++) {
                body[i] = (byte) i;
            }
            buf.begin(1);
            buf.begin(2);
            buf.bytes(3, body);
            buf.end();
            buf.uint64(4, -1L);
            buf.end();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try {
                buf.writeTo(out);
            } catch (IOException e) {
                throw new AssertionError(e);
            }
            Reader outer = new Reader(out.toByteArray());
            assertEquals(1, outer.tag() >>> 3);
            Reader message = outer.message();
            assertTrue(outer.done());
            assertEquals(2, message.tag() >>> 3);
            Reader inner = message.message();
            assertEquals(3, inner.tag() >>> 3);
            assertArrayEquals(body, inner.bytes(), "length " + length);
            assertTrue(inner.done());
            assertEquals((4 << 3), message.tag());
            assertEquals(-1L, message.varint());
            assertTrue(message.done());
        }
    }

    @Test
    void arraysAreWrittenAsJsonText() {
        long[][] cases = {{0, 1, 2}, {-7, 10, 1_000_000_007}, {Long.MIN_VALUE, Long.MAX_VALUE, -1}};
        for (long[] c : cases) {
            ProtoBuffer buf = new ProtoBuffer();
            buf.asciiTriple(9, c[0], c[1], c[2]);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try {
                buf.writeTo(out);
            } catch (IOException e) {
                throw new AssertionError(e);
            }
            Reader r = new Reader(out.toByteArray());
            assertEquals((9 << 3) | 2, r.tag());
            assertEquals("[" + c[0] + "," + c[1] + "," + c[2] + "]", new String(r.bytes(), StandardCharsets.US_ASCII));
            assertTrue(r.done());
        }
    }

    /** What a .pftrace holds, read packet by packet; fails on anything malformed or inconsistent. */
    private static final class Decoded {
        final Map<String, Long> categories = new TreeMap<>();
        long slices;
        long args;
        final List<Long> flowStarts = new ArrayList<>();
        final List<Long> flowEnds = new ArrayList<>();
        long flowEndsWithOwnCorrelation;

        static Decoded of(byte[] trace) {
            Decoded d = new Decoded();
            Map<Long, String> names = new HashMap<>();
            Map<Long, String> cats = new HashMap<>();
            Map<Long, String> keys = new HashMap<>();
            Set<Long> tracks = new HashSet<>();
            Map<Long, Long> open = new HashMap<>(); // track to the open slice's begin time
            boolean cleared = false;
            Reader r = new Reader(trace);
            while (!r.done()) {
                assertEquals((1 << 3) | 2, r.tag(), "a Trace holds only packets (field 1)");
                Reader p = r.message();
                long ts = -1;
                long sequence = -1;
                long flags = 0;
                Reader event = null;
                Reader descriptor = null;
                List<Reader> interned = new ArrayList<>();
                while (!p.done()) {
                    int tag = p.tag();
                    switch (tag) {
                        case (8 << 3) -> ts = p.varint();
                        case (10 << 3) -> sequence = p.varint();
                        case (13 << 3) -> flags = p.varint();
                        case (11 << 3) | 2 -> event = p.message();
                        case (12 << 3) | 2 -> interned.add(p.message());
                        case (60 << 3) | 2 -> descriptor = p.message();
                        default -> throw new AssertionError("unexpected packet field, tag " + tag);
                    }
                }
                assertEquals(1, sequence, "one trusted sequence");
                if (!cleared) {
                    assertEquals(1, flags & 1, "the first packet clears the incremental state");
                    cleared = true;
                }
                for (Reader i : interned) {
                    while (!i.done()) {
                        int field = i.tag() >>> 3;
                        Reader entry = i.message();
                        assertEquals(1 << 3, entry.tag());
                        long iid = entry.varint();
                        assertEquals((2 << 3) | 2, entry.tag());
                        String value = new String(entry.bytes(), StandardCharsets.UTF_8);
                        Map<Long, String> table = field == 1 ? cats : field == 2 ? names : field == 3 ? keys : null;
                        assertNotNull(table, "interned field " + field);
                        assertTrue(table.put(iid, value) == null, "iid " + iid + " interned once");
                    }
                }
                if (descriptor != null) {
                    assertEquals(1 << 3, descriptor.tag(), "a descriptor starts with its uuid");
                    tracks.add(descriptor.varint());
                }
                if (event != null) {
                    assertTrue(ts > 0, "every event has a time");
                    d.event(event, ts, flags, names, cats, keys, tracks, open);
                }
            }
            assertTrue(open.isEmpty(), "every slice ends: " + open);
            return d;
        }

        private void event(Reader e, long ts, long flags, Map<Long, String> names, Map<Long, String> cats,
                           Map<Long, String> keys, Set<Long> tracks, Map<Long, Long> open) {
            long type = -1;
            long track = -1;
            String category = null;
            long correlation = -1;
            long terminating = -1;
            while (!e.done()) {
                int tag = e.tag();
                switch (tag) {
                    case (9 << 3) -> type = e.varint();
                    case (11 << 3) -> track = e.varint();
                    case (3 << 3) -> category = cats.get(e.varint());
                    case (10 << 3) -> assertNotNull(names.get(e.varint()), "a name interned before its use");
                    case (36 << 3) -> flowStarts.add(e.varint());
                    case (42 << 3) -> {
                        terminating = e.varint();
                        flowEnds.add(terminating);
                    }
                    case (4 << 3) | 2 -> {
                        Reader a = e.message();
                        assertEquals(1 << 3, a.tag());
                        String key = keys.get(a.varint());
                        assertNotNull(key, "an argument key interned before its use");
                        int value = a.tag();
                        if (value == (9 << 3 | 2)) { // an array as JSON text: one arg per element
                            String text = new String(a.bytes(), StandardCharsets.UTF_8);
                            args += text.equals("[]") ? 0 : text.split(",").length;
                        } else if (value == (5 << 3 | 1)) {
                            a.fixed64();
                            args++;
                        } else {
                            assertTrue(value == (3 << 3) || value == (4 << 3), "uint or int value, tag " + value);
                            long v = a.varint();
                            if (key.equals("correlation")) {
                                correlation = v;
                            }
                            args++;
                        }
                        assertTrue(a.done());
                    }
                    default -> throw new AssertionError("unexpected TrackEvent field, tag " + tag);
                }
            }
            assertTrue(tracks.contains(track), "track " + track + " described before its events");
            if (type == 1) {
                assertNotNull(category, "a begin has an interned category");
                assertEquals(2, flags & 2, "a begin that uses interned data says so");
                assertTrue(open.put(track, ts) == null, "slices on a track open one at a time in this writer");
                categories.merge(category, 1L, Long::sum);
                if (terminating != -1 && terminating == correlation) {
                    flowEndsWithOwnCorrelation++;
                }
            } else {
                assertEquals(2, type, "begin or end");
                Long begin = open.remove(track);
                assertNotNull(begin, "an end closes an open slice on its track");
                assertTrue(begin <= ts, "a slice ends after it begins");
                slices++;
            }
        }
    }

    /** A protobuf reader: varints, fixed64 and length-delimited fields, nothing else. */
    private static final class Reader {
        private final byte[] b;
        private int at;
        private final int end;

        Reader(byte[] b) {
            this(b, 0, b.length);
        }

        private Reader(byte[] b, int from, int to) {
            this.b = b;
            this.at = from;
            this.end = to;
        }

        boolean done() {
            return at == end;
        }

        int tag() {
            return (int) varint();
        }

        long varint() {
            long v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                assertTrue(at < end, "varint runs past its message");
                byte x = b[at++];
                v |= (long) (x & 0x7F) << shift;
                if (x >= 0) {
                    return v;
                }
            }
            throw new AssertionError("varint longer than 10 bytes");
        }

        long fixed64() {
            assertTrue(at + 8 <= end, "fixed64 runs past its message");
            long v = 0;
            for (int i = 0; i < 8; i++) {
                v |= (b[at++] & 0xFFL) << (8 * i);
            }
            return v;
        }

        byte[] bytes() {
            int n = (int) varint();
            assertTrue(n >= 0 && at + n <= end, "length " + n + " runs past its message");
            byte[] out = java.util.Arrays.copyOfRange(b, at, at + n);
            at += n;
            return out;
        }

        Reader message() {
            int n = (int) varint();
            assertTrue(n >= 0 && at + n <= end, "length " + n + " runs past its message");
            Reader r = new Reader(b, at, at + n);
            at += n;
            return r;
        }
    }
}
