package org.flagos.trace.report;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPOutputStream;

/**
 * The table of malformed (and merely odd) {@code .pftrace} files, the counterpart of the JSON table
 * ({@code tracefile.MalformedTraces}): each case a file, the exit code every command that reads a
 * {@code .pftrace} gives it (0 read, 1 refused) and, for a refusal, the words of its one line. Each
 * case starts from one small valid trace written the way {@code PerfettoProtoSink} writes one (an op on a
 * host thread and the kernel it launched on a device stream, with their External id) and breaks one
 * thing. Run through the reader ({@code PerfettoTraceReaderTest}) and through each command
 * ({@code cli.MalformedPftracesCliTest}).
 */
public final class MalformedPftraces {
    /** Builds a case's file in a directory. */
    public interface Builder {
        Path write(Path dir) throws IOException;
    }

    /**
     * One case.
     *
     * @param name  what it is
     * @param build its file
     * @param exit  0: read; 1: refused in one line
     * @param words for a refusal, the line after the file's name (null: read)
     */
    public record Case(String name, Builder build, int exit, String words) {
        @Override
        public String toString() {
            return name;
        }
    }

    private MalformedPftraces() {
    }

    /** A protobuf message being written: tags, varints and length-delimited fields, nothing else. */
    static final class Pb {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Pb varint(long v) {
            while ((v & ~0x7FL) != 0) {
                out.write((int) (v & 0x7F) | 0x80);
                v >>>= 7;
            }
            out.write((int) v);
            return this;
        }

        Pb tag(int field, int wire) {
            return varint((long) field << 3 | wire);
        }

        Pb number(int field, long v) {
            return tag(field, 0).varint(v);
        }

        Pb message(int field, Pb m) {
            byte[] b = m.bytes();
            tag(field, 2).varint(b.length);
            out.writeBytes(b);
            return this;
        }

        Pb string(int field, String s) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            tag(field, 2).varint(b.length);
            out.writeBytes(b);
            return this;
        }

        Pb raw(int... bytes) {
            for (int b : bytes) {
                out.write(b);
            }
            return this;
        }

        Pb raw(byte[] bytes) {
            out.writeBytes(bytes);
            return this;
        }

        byte[] bytes() {
            return out.toByteArray();
        }
    }

    static Pb interned(int iid, String name) {
        return new Pb().number(1, iid).string(2, name);
    }

    /** A track event packet: a slice's begin (type 1) or end (type 2) on a track at a time, with its name and External id. */
    static Pb slice(long ts, int type, long track, int category, int name, long external) {
        Pb event = new Pb().number(9, type).number(11, track);
        if (type == 1) {
            event.number(3, category).number(10, name).message(4, new Pb().number(1, 1).number(4, external));
        }
        return new Pb().number(8, ts).number(10, 1).message(11, event);
    }

    /** Packets as the trace holds them: each in field 1 of {@code Trace}. */
    static byte[] trace(Pb... packets) {
        Pb t = new Pb();
        for (Pb p : packets) {
            t.message(1, p);
        }
        return t.bytes();
    }

    /** The packets of the valid trace: interned names, a host thread, a device and its stream, two slices. */
    static Pb[] validPackets() {
        Pb interning = new Pb().number(10, 1).number(13, 3).message(12, new Pb()
                .message(1, interned(1, "cpu_op")).message(1, interned(2, "kernel"))
                .message(2, interned(1, "aten::mm")).message(2, interned(2, "gemm"))
                .message(3, interned(1, "External id")));
        Pb thread = new Pb().message(60, new Pb().number(1, 10).message(4, new Pb().number(1, 4242).number(2, 4243)));
        Pb gpu = new Pb().message(60, new Pb().number(1, 20).string(2, "GPU 0"));
        Pb stream = new Pb().message(60, new Pb().number(1, 21).number(5, 20).string(2, "stream 7"));
        return new Pb[] {
            interning, thread, gpu, stream,
            slice(1_000_010_000L, 1, 10, 1, 1, 1), slice(1_000_011_000L, 1, 21, 2, 2, 1),
            slice(1_000_013_000L, 2, 21, 0, 0, 0), slice(1_000_015_000L, 2, 10, 0, 0, 0),
        };
    }

    /** The valid trace's bytes: {@code aten::mm} 5 µs on thread 4243 of pid 4242, {@code gemm} 2 µs on device 0 stream 7. */
    public static byte[] valid() {
        return trace(validPackets());
    }

    /** The valid trace with {@code packet} added after its packets. */
    static byte[] validAnd(Pb packet) {
        Pb[] v = validPackets();
        Pb[] all = Arrays.copyOf(v, v.length + 1);
        all[v.length] = packet;
        return trace(all);
    }

    /** The valid trace followed by {@code tail} as it is (not wrapped in a packet). */
    static byte[] validThen(int... tail) {
        return new Pb().raw(valid()).raw(tail).bytes();
    }

    static byte[] gzip(byte[] bytes) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(out)) {
            z.write(bytes);
        }
        return out.toByteArray();
    }

    private static String file(String name, String suffix) {
        return name.replaceAll("[^A-Za-z0-9]+", "-") + suffix;
    }

    private static Case ok(String name, byte[] bytes) {
        return new Case(name, dir -> Files.write(dir.resolve(file(name, ".pftrace")), bytes), 0, null);
    }

    private static Case refused(String name, byte[] bytes, String words) {
        return new Case(name, dir -> Files.write(dir.resolve(file(name, ".pftrace")), bytes), 1, words);
    }

    private static Case refusedGz(String name, byte[] bytes, String words) {
        return new Case(name, dir -> Files.write(dir.resolve(file(name, ".pftrace.gz")), bytes), 1, words);
    }

    /** Where the next packet of the valid trace would begin. */
    static int end() {
        return valid().length;
    }

    /** Every case. */
    public static List<Case> all() throws IOException {
        int end = end();
        byte[] valid = valid();
        byte[] z = gzip(valid);
        byte[] badCrc = z.clone();
        badCrc[badCrc.length - 8] ^= 0x55; // the trailer: CRC-32, then the length
        // an unknown field this long makes a packet just past the 4 MiB an event may have (which the old bound, 64 MiB, read)
        Pb bigPacket = new Pb().string(96, new String(new byte[(4 << 20) - 16], StandardCharsets.ISO_8859_1)).string(95, "0123456789abcdefghij");
        return List.of(
                ok("a valid trace", valid),
                new Case("a valid gzipped trace", dir -> Files.write(dir.resolve("valid.pftrace.gz"), z), 0, null),
                ok("a packet of fields no reader knows", validAnd(new Pb().number(99, 5).tag(98, 5).raw(1, 2, 3, 4)
                        .tag(97, 1).raw(1, 2, 3, 4, 5, 6, 7, 8).string(96, "x"))),
                refused("an empty file", new byte[0], "is not a trace: it is empty"),
                refused("a packet length cut short (truncated varint)", validThen(0x0A, 0x80),
                        "ends in the middle of a packet (truncated?) at byte " + (end + 2)),
                refused("a packet cut short", Arrays.copyOf(valid, end - 3),
                        "ends in the middle of a packet (truncated?) at byte " + (end - 3)),
                refused("a number cut short inside a packet", validThen(0x0A, 0x02, 0x40, 0x80),
                        "is not a trace: the packet at byte " + end + " has a field that runs past its end"),
                refused("a field length running past the packet's end", validThen(0x0A, 0x03, 0x62, 0x10, 0x00),
                        "is not a trace: the packet at byte " + end + " has a field of 16 bytes where 1 are left"),
                refused("a field length of 2^64 - 1", validThen(0x0A, 0x0B, 0x62, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01),
                        "is not a trace: the packet at byte " + end + " has a field of 18446744073709551615 bytes where 0 are left"),
                refused("a packet length of 2 GiB", validThen(0x0A, 0x80, 0x80, 0x80, 0x80, 0x08),
                        "is not a trace: the packet at byte " + end + " is longer than 4194304 bytes (it says 2147483648)"),
                refused("a packet of more than 4 MiB", validAnd(bigPacket),
                        "is not a trace: the packet at byte " + end + " is longer than 4194304 bytes (it says " + bigPacket.bytes().length + ")"),
                refused("a packet length past 10 bytes", validThen(0x0A, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01),
                        "is not a trace: a number at byte " + end + " runs past 10 bytes"),
                refused("a track event of the wrong wire type", validAnd(new Pb().number(11, 1)),
                        "is not a trace: the packet at byte " + end + " has wire type 0 where a message belongs"),
                refused("a timestamp of the wrong wire type", validAnd(new Pb().string(8, "\u0005")),
                        "is not a trace: the packet at byte " + end + " has wire type 2 where a number belongs"),
                refused("a group, a wire type no trace uses", validAnd(new Pb().tag(5, 3)),
                        "is not a trace: the packet at byte " + end + " has a field of wire type 3, which no trace uses"),
                refused("a field numbered 0", validAnd(new Pb().tag(0, 0).varint(1)),
                        "is not a trace: the packet at byte " + end + " has a field numbered 0, which protobuf has not"),
                refused("something other than a packet", validThen(0x10, 0x01),
                        "is not a trace: field 2 of wire type 0 at byte " + end + " where a packet belongs"),
                refused("a garbage packet", validThen(0x0A, 0x04, 0xFF, 0xFF, 0xFF, 0xFF),
                        "is not a trace: the packet at byte " + end + " has a field that runs past its end"),
                refused("a timestamp of 2^62 + 1", validAnd(slice((1L << 62) + 1, 2, 10, 0, 0, 0)),
                        "is not a trace: the packet at byte " + end + " has a timestamp of 4611686018427387905 ns, beyond ±4611686018427387904 ns"),
                refused("a timestamp of 2^64 - 1", validAnd(slice(-1L, 2, 10, 0, 0, 0)),
                        "is not a trace: the packet at byte " + end + " has a timestamp of 18446744073709551615 ns, beyond ±4611686018427387904 ns"),
                refusedGz("a gzip with a wrong CRC", badCrc, "is not a whole gzip file (Corrupt GZIP trailer); truncated?"),
                refusedGz("a gzip cut in its data", Arrays.copyOf(z, z.length / 2), "is not a whole gzip file (it ends early); truncated?"),
                refusedGz("a gzip cut in its trailer", Arrays.copyOf(z, z.length - 4), "is not a whole gzip file (it ends early); truncated?"));
    }
}
