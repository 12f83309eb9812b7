package org.flagos.trace.fuzz;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.testing.CuptiRecords;

/**
 * Writes the fuzz targets' seed corpora from the bundled real H200 captures (each seed under
 * 100 KB: whole small files, the first frames or lines of larger ones). Not a test; run it from
 * the repository root after {@code mvn test-compile} (docs/fuzzing.md):
 * {@code java -cp target/test-classes org.flagos.trace.fuzz.SeedCorpus}.
 */
public final class SeedCorpus {
    private static final Path CAPTURES = Path.of("src/test/resources/captures");
    private static final Path INPUTS = Path.of("src/test/resources/org/flagos/trace/fuzz");
    private static final byte[] MAGIC = "FLTRBUF1".getBytes(StandardCharsets.US_ASCII);
    /** CUPTI 13.0 record sizes by activity kind, as CuptiActivityKind knows them. */
    private static final Map<Integer, Integer> RECORD_SIZES = Map.of(
            1, 96, 2, 88, 3, 216, 10, 216, 4, 40, 5, 40, 17, 56, 38, 56, 39, 24);
    static final int MAX_SEED = 100 * 1024;

    public static void main(String[] args) throws IOException {
        // CUPTI decoder: whole frame payloads, the head of a large one, and one record of each kind.
        Path decode = dir("CuptiBufferDecoderFuzzTest", "decode");
        write(decode.resolve("h200-app.frame0.bin"), frames("h200-app").get(0));
        write(decode.resolve("h200-java-parity.frame0.bin"), frames("h200-java-parity").get(0));
        write(decode.resolve("h200-java-parity.frame2.bin"), frames("h200-java-parity").get(2));
        write(decode.resolve("h200-mt4.frame0.bin"), frames("h200-mt4").get(0));
        write(decode.resolve("h200-app-tiny2k.frame0-head32k.bin"), recordsHead(frames("h200-app-tiny2k").get(0), 32 * 1024));
        Map<Integer, byte[]> firstOfKind = new LinkedHashMap<>();
        for (String capture : List.of("h200-app", "h200-java-parity", "h200-mt4")) {
            for (byte[] payload : frames(capture)) {
                ByteBuffer b = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
                for (int pos = 0; pos + 4 <= payload.length; ) {
                    int kind = b.getInt(pos);
                    Integer size = RECORD_SIZES.get(kind);
                    if (size == null || pos + size > payload.length) {
                        break;
                    }
                    firstOfKind.putIfAbsent(kind, Arrays.copyOfRange(payload, pos, pos + size));
                    pos += size;
                }
            }
        }
        // Kinds the captures lack, from a record of the same layout: KERNEL as CONCURRENT_KERNEL,
        // DRIVER as RUNTIME, and an OVERHEAD record (skipped by the decoder) of zeros.
        firstOfKind.putIfAbsent(3, withKind(firstOfKind.get(10), 3));
        firstOfKind.putIfAbsent(4, withKind(firstOfKind.get(5), 4));
        firstOfKind.putIfAbsent(17, withKind(new byte[56], 17));
        for (Map.Entry<Integer, byte[]> e : firstOfKind.entrySet()) {
            write(decode.resolve("record-kind" + e.getKey() + ".bin"), e.getValue());
        }
        // Kinds no bundled capture holds, constructed at CUPTI 13.0's offsets (CuptiRecords): a
        // synchronization of each type, an overhead record of each kind torch names, a graph launch.
        write(decode.resolve("record-kind38.bin"), new CuptiRecords().sync(3, T0, T0 + 80_000, 77, 1, 7, -1).bytes());
        write(decode.resolve("constructed-sync-overhead-graph.bin"), constructed().bytes());
        Path vendors = dir("VendorDecodersFuzzTest", "decode");
        for (int clock = 0; clock < 2; clock++) {
            byte[] buffer = constructed().bytes();
            byte[] input = new byte[buffer.length + 2];
            input[1] = (byte) clock;
            System.arraycopy(buffer, 0, input, 2, buffer.length);
            write(vendors.resolve("vendor1-clock" + clock + "-constructed-sync-overhead-graph.bin"), input);
        }

        // Frame reader: whole small captures, the first frames of a larger one, a cut one, tiny frames.
        Path frames = dir("FltrbufFramesFuzzTest", "frames");
        write(frames.resolve("h200-app.fltrbuf"), Files.readAllBytes(CAPTURES.resolve("h200-app.fltrbuf")));
        write(frames.resolve("h200-java-parity.fltrbuf"), Files.readAllBytes(CAPTURES.resolve("h200-java-parity.fltrbuf")));
        List<byte[]> mt4 = frames("h200-mt4");
        byte[] mt4Two = fltrbuf(List.of(mt4.get(0), mt4.get(1)));
        write(frames.resolve("h200-mt4.first2.fltrbuf"), mt4Two);
        write(frames.resolve("h200-mt4.cut.fltrbuf"), Arrays.copyOf(mt4Two, MAGIC.length + 16 + mt4.get(0).length + 16 + 1000));
        write(frames.resolve("three-small-frames.fltrbuf"), threeSmallFrames(firstOfKind));

        // Ops reader: whole small files, the head of the large ones closed by their window_end line.
        Path ops = dir("OpsJsonlReaderFuzzTest", "read");
        write(ops.resolve("h200-app.ops.jsonl"), Files.readAllBytes(CAPTURES.resolve("h200-app.ops.jsonl")));
        write(ops.resolve("h200-java-parity.ops.jsonl"), Files.readAllBytes(CAPTURES.resolve("h200-java-parity.ops.jsonl")));
        write(ops.resolve("h200-mt4.head.ops.jsonl"), opsHead("h200-mt4", 60));
        write(ops.resolve("h200-app-tiny2k.head.ops.jsonl"), opsHead("h200-app-tiny2k", 60));

        // Kernel name tables: all distinct bundled ones.
        Path names = dir("KernelNameFileFuzzTest", "read");
        for (String capture : List.of("h200-app", "h200-app-tiny2k", "h200-mt4", "h200-java-parity")) {
            write(names.resolve(capture + ".names.tsv"), Files.readAllBytes(CAPTURES.resolve(capture + ".names.tsv")));
        }

        // Device properties: the live session's file, the bundled h200 one, a plain array, a torch trace head.
        Path devices = dir("DevicePropertiesFileFuzzTest", "read");
        write(devices.resolve("h200-java-parity.devices.json"), Files.readAllBytes(CAPTURES.resolve("h200-java-parity.devices.json")));
        write(devices.resolve("nvidia-h200.json"), Files.readAllBytes(Path.of("resources/org/flagos/trace/devices/nvidia-h200.json")));
        write(devices.resolve("array.json"), ("[" + Files.readString(Path.of("src/test/resources/occupancy/h200_device_properties.json")) + "]")
                .getBytes(StandardCharsets.UTF_8));
        String torch = Files.readString(Path.of("src/test/resources/baseline/torch_trace.json"));
        write(devices.resolve("torch-trace-head.json"), (torch.substring(0, torch.indexOf("\"traceEvents\"")) + "\"traceEvents\": []}\n")
                .getBytes(StandardCharsets.UTF_8));

        // Whole replay: capture + ops + names + device properties, see ReplayInput.
        Path replay = dir("CaptureReplayFuzzTest", "replay");
        write(replay.resolve("h200-app.replay"), new ReplayInput(Files.readAllBytes(CAPTURES.resolve("h200-app.fltrbuf")),
                Files.readAllBytes(CAPTURES.resolve("h200-app.ops.jsonl")), names("h200-app"), true, null).join());
        write(replay.resolve("h200-app.capture-only.replay"), new ReplayInput(
                Files.readAllBytes(CAPTURES.resolve("h200-app.fltrbuf")), null, null, false, null).join());
        List<byte[]> parity = frames("h200-java-parity");
        write(replay.resolve("h200-java-parity.first2.replay"), new ReplayInput(fltrbuf(List.of(parity.get(0), parity.get(1))),
                Files.readAllBytes(CAPTURES.resolve("h200-java-parity.ops.jsonl")), names("h200-java-parity"), false,
                Files.readAllBytes(CAPTURES.resolve("h200-java-parity.devices.json"))).join());
        write(replay.resolve("h200-mt4.frame0.replay"), new ReplayInput(fltrbuf(List.of(mt4.get(0))),
                opsHead("h200-mt4", 150), names("h200-mt4"), false, null).join());
        write(replay.resolve("h200-app-tiny2k.head.replay"), new ReplayInput(
                fltrbuf(List.of(recordsHead(frames("h200-app-tiny2k").get(0), 24 * 1024))),
                opsHead("h200-app-tiny2k", 60), names("h200-app-tiny2k"), true, null).join());
    }

    private static Path dir(String testClass, String method) throws IOException {
        return Files.createDirectories(INPUTS.resolve(testClass + "Inputs").resolve(method));
    }

    private static void write(Path path, byte[] bytes) throws IOException {
        if (bytes.length > MAX_SEED) {
            throw new IllegalStateException(path + ": " + bytes.length + " bytes, over " + MAX_SEED);
        }
        Files.write(path, bytes);
    }

    private static byte[] names(String capture) throws IOException {
        return Files.readAllBytes(CAPTURES.resolve(capture + ".names.tsv"));
    }

    private static final long T0 = 1_795_982_695_166_400_000L;

    /** Synchronizations of every type, overhead records of every named kind, a graph's three kernels. */
    private static CuptiRecords constructed() {
        CuptiRecords r = new CuptiRecords();
        for (int type = 0; type <= 5; type++) {
            r.sync(type, T0 + type * 1_000L, T0 + type * 1_000L + 500, 100 + type, 1, type % 2 == 0 ? 7 : -1, type);
        }
        int[] kinds = {0, 1, 1 << 16, 2 << 16, 3 << 16, 4 << 16, 5 << 16, 6 << 16, 7 << 16, 8 << 16};
        for (int k : kinds) {
            r.overhead(k, T0 + 10_000, T0 + 11_000, 535, 77);
        }
        for (int node = 0; node < 3; node++) {
            r.kernel(T0 + 20_000 + node * 1_000L, T0 + 20_500 + node * 1_000L, 0, 1, 7, 200, 0x5622d22bc6e0L, 5, 11 + node);
        }
        return r;
    }

    /** The payloads of a capture's frames. */
    private static List<byte[]> frames(String capture) throws IOException {
        ByteBuffer file = ByteBuffer.wrap(Files.readAllBytes(CAPTURES.resolve(capture + ".fltrbuf"))).order(ByteOrder.LITTLE_ENDIAN);
        List<byte[]> payloads = new ArrayList<>();
        for (int pos = MAGIC.length; pos + 16 <= file.limit(); ) {
            int length = (int) file.getLong(pos + 8);
            payloads.add(Arrays.copyOfRange(file.array(), pos + 16, pos + 16 + length));
            pos += 16 + length;
        }
        return payloads;
    }

    private static byte[] withKind(byte[] record, int kind) {
        byte[] copy = record.clone();
        ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN).putInt(0, kind);
        return copy;
    }

    /** Whole records from the start of a CUPTI buffer, up to {@code max} bytes. */
    private static byte[] recordsHead(byte[] payload, int max) {
        ByteBuffer b = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
        int pos = 0;
        while (pos + 4 <= payload.length) {
            Integer size = RECORD_SIZES.get(b.getInt(pos));
            if (size == null || pos + size > max) {
                break;
            }
            pos += size;
        }
        return Arrays.copyOf(payload, pos);
    }

    /** A .fltrbuf of CUPTI frames. */
    private static byte[] fltrbuf(List<byte[]> payloads) {
        int size = MAGIC.length;
        for (byte[] p : payloads) {
            size += 16 + p.length;
        }
        ByteBuffer out = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN).put(MAGIC);
        for (byte[] p : payloads) {
            out.putInt(1).putInt(0).putLong(p.length).put(p);
        }
        return out.array();
    }

    /** Three frames: a CUPTI record, an empty frame of another vendor, two CUPTI records. */
    private static byte[] threeSmallFrames(Map<Integer, byte[]> firstOfKind) {
        byte[] api = firstOfKind.get(5);
        byte[] ext = firstOfKind.get(39);
        byte[] two = new byte[api.length + ext.length];
        System.arraycopy(ext, 0, two, 0, ext.length);
        System.arraycopy(api, 0, two, ext.length, api.length);
        ByteBuffer out = ByteBuffer.allocate(MAGIC.length + 3 * 16 + api.length + two.length).order(ByteOrder.LITTLE_ENDIAN);
        out.put(MAGIC).putInt(1).putInt(0).putLong(api.length).put(api);
        out.putInt(2).putInt(0).putLong(0);
        out.putInt(1).putInt(0).putLong(two.length).put(two);
        return out.array();
    }

    /** The first {@code lines} lines of an ops file and its last (window_end) line. */
    private static byte[] opsHead(String capture, int lines) throws IOException {
        List<String> all = Files.readAllLines(CAPTURES.resolve(capture + ".ops.jsonl"));
        List<String> head = new ArrayList<>(all.subList(0, Math.min(lines, all.size() - 1)));
        head.add(all.get(all.size() - 1));
        return (String.join("\n", head) + "\n").getBytes(StandardCharsets.UTF_8);
    }

    private SeedCorpus() {
    }
}
