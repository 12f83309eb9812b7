package org.flagos.trace.testing;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.ingest.FltrbufFrames;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.ingest.HostOps;
import org.flagos.trace.ingest.OpsJsonlReader;

/**
 * A long capture made from the real 30,000-launch H200 capture: its buffers written again and
 * again, each repetition's correlation ids, External ids and timestamps moved past the previous
 * one's, so that every record keeps its own binding, launch and flow, exactly as in the original.
 * Written straight to a file, one buffer at a time.
 */
public final class SyntheticCapture {
    /** The real capture the repetitions are made of. */
    public static final String SOURCE = "h200-tiny30k";

    private static final int KIND_MEMCPY = 1;
    private static final int KIND_MEMSET = 2;
    private static final int KIND_KERNEL = 3;
    private static final int KIND_DRIVER = 4;
    private static final int KIND_RUNTIME = 5;
    private static final int KIND_CONCURRENT_KERNEL = 10;
    private static final int KIND_OVERHEAD = 17;
    private static final int KIND_EXTERNAL_CORRELATION = 39;

    /** The op wrapping each repetition's ops, and the one wrapping the whole capture. */
    public static final String REPETITION_OP = "app::repetition";
    public static final String CAPTURE_OP = "app::capture";

    private final List<ByteBuffer> frames = new ArrayList<>();
    private final HostOps ops;
    private long opsMinStart = Long.MAX_VALUE;
    private long opsMaxEnd = Long.MIN_VALUE;
    private long records;
    private long minStart = Long.MAX_VALUE;
    private long maxEnd;
    private long maxCorrelation;
    private long maxExternal;

    /** Loads the real capture's buffers and ops and measures what a repetition must move. */
    public SyntheticCapture() {
        ops = OpsJsonlReader.read(Captures.ops(SOURCE));
        for (HostOp op : ops.ops()) {
            opsMinStart = Math.min(opsMinStart, op.startNs());
            opsMaxEnd = Math.max(opsMaxEnd, op.endNs());
            maxExternal = Math.max(maxExternal, op.externalId().value());
        }
        minStart = Math.min(opsMinStart, ops.windowStartNs());
        maxEnd = Math.max(opsMaxEnd, ops.windowEndNs());
        try (FltrbufFrames in = FltrbufFrames.open(Captures.capture(SOURCE))) {
            while (in.next()) {
                ByteBuffer p = in.payload();
                ByteBuffer copy = ByteBuffer.allocate(p.remaining()).order(ByteOrder.LITTLE_ENDIAN).put(p.duplicate());
                copy.flip();
                frames.add(copy);
                scan(copy);
            }
        }
    }

    /** Records in one repetition (every record kind, bindings included). */
    public long recordsPerRepetition() {
        return records;
    }

    /** Repetitions needed for at least {@code records} records. */
    public int repetitionsFor(long records) {
        return (int) ((records + this.records - 1) / this.records);
    }

    /** Ops in one repetition's ops file: the real ones, the repetition's wrapper and the capture's. */
    public long opsPerRepetition() {
        return ops.ops().size() + 1;
    }

    private long span() {
        return maxEnd - minStart + 1_000_000;
    }

    /**
     * Writes the ops of {@code repetitions} repetitions as an ops file, one op per line as ops end:
     * each repetition's real ops (one per launch of the 30,000 tiny kernels, and the nested
     * matmul_relu ops) moved like its records, then {@link #REPETITION_OP} around them, and at the
     * end {@link #CAPTURE_OP} around every repetition.
     */
    public void writeOps(Path out, int repetitions) {
        long span = span();
        long externalStride = maxExternal + 1;
        long wrapperIds = repetitions * externalStride;
        try (BufferedWriter w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            w.write("{\"window_start\":" + ops.windowStartNs() + "}\n");
            for (int r = 0; r < repetitions; r++) {
                for (HostOp op : ops.ops()) {
                    line(w, op.name(), op.externalId().value() + r * externalStride, op.startNs() + r * span, op.endNs() + r * span);
                }
                line(w, REPETITION_OP, wrapperIds + r, opsMinStart + r * span, opsMaxEnd + r * span);
            }
            // One nanosecond wider than the repetitions on each side: its own parent, never a repetition's child.
            line(w, CAPTURE_OP, wrapperIds + repetitions, opsMinStart - 1, opsMaxEnd + (repetitions - 1) * span + 1);
            w.write("{\"window_end\":" + (ops.windowEndNs() + (repetitions - 1) * span) + "}\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void line(BufferedWriter w, String name, long external, long start, long end) throws IOException {
        w.write("{\"name\":\"" + name + "\",\"external_id\":" + external + ",\"start\":" + start + ",\"end\":" + end + "}\n");
    }

    /** Writes {@code repetitions} repetitions to {@code out}, and the kernel name table beside it. */
    public void write(Path out, int repetitions) {
        long span = span();
        long correlationStride = maxCorrelation + 1;
        long externalStride = maxExternal + 1;
        if (correlationStride * repetitions > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException(repetitions + " repetitions overflow CUPTI's 32-bit correlation ids");
        }
        ByteBuffer header = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel file = FileChannel.open(out, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            file.write(ByteBuffer.wrap("FLTRBUF1".getBytes(StandardCharsets.US_ASCII)));
            ByteBuffer buffer = null;
            for (int r = 0; r < repetitions; r++) {
                for (ByteBuffer frame : frames) {
                    if (buffer == null || buffer.capacity() < frame.remaining()) {
                        buffer = ByteBuffer.allocate(frame.remaining()).order(ByteOrder.LITTLE_ENDIAN);
                    }
                    buffer.clear();
                    buffer.put(frame.duplicate()).flip();
                    shift(buffer, r * span, r * correlationStride, r * externalStride);
                    header.clear();
                    header.putInt(1).putInt(0).putLong(buffer.remaining()).flip();
                    writeFully(file, header);
                    writeFully(file, buffer);
                }
            }
            String name = out.getFileName().toString().replaceFirst("\\.fltrbuf$", "");
            Files.copy(Captures.names(SOURCE), out.resolveSibling(name + ".names.tsv"), StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void writeFully(FileChannel file, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            file.write(b);
        }
    }

    private void scan(ByteBuffer b) {
        for (int pos = b.position(); pos + 4 <= b.limit(); ) {
            int kind = b.getInt(pos);
            int size = size(kind);
            if (size < 0 || pos + size > b.limit()) {
                throw new IllegalStateException("record kind " + kind + " at " + pos + " not known to the generator");
            }
            records++;
            int[] f = fields(kind);
            if (f[0] >= 0) {
                long start = b.getLong(pos + f[0]);
                long end = b.getLong(pos + f[1]);
                if (start != 0) {
                    minStart = Math.min(minStart, start);
                    maxEnd = Math.max(maxEnd, end);
                }
            }
            if (f[2] >= 0) {
                maxCorrelation = Math.max(maxCorrelation, Integer.toUnsignedLong(b.getInt(pos + f[2])));
            }
            if (kind == KIND_EXTERNAL_CORRELATION) {
                maxExternal = Math.max(maxExternal, b.getLong(pos + 8));
            }
            pos += size;
        }
    }

    private static void shift(ByteBuffer b, long time, long correlation, long external) {
        for (int pos = b.position(); pos < b.limit(); ) {
            int kind = b.getInt(pos);
            int[] f = fields(kind);
            if (f[0] >= 0 && b.getLong(pos + f[0]) != 0) {
                b.putLong(pos + f[0], b.getLong(pos + f[0]) + time);
                b.putLong(pos + f[1], b.getLong(pos + f[1]) + time);
            }
            if (f[2] >= 0 && b.getInt(pos + f[2]) != 0) { // 0: no correlation
                b.putInt(pos + f[2], (int) (Integer.toUnsignedLong(b.getInt(pos + f[2])) + correlation));
            }
            if (kind == KIND_EXTERNAL_CORRELATION) {
                b.putLong(pos + 8, b.getLong(pos + 8) + external);
            }
            pos += size(kind);
        }
    }

    /** CUPTI 13.0 record sizes (CuptiActivityKind's table). */
    private static int size(int kind) {
        switch (kind) {
            case KIND_MEMCPY: return 96;
            case KIND_MEMSET: return 88;
            case KIND_KERNEL:
            case KIND_CONCURRENT_KERNEL: return 216;
            case KIND_DRIVER:
            case KIND_RUNTIME: return 40;
            case KIND_OVERHEAD: return 56;
            case KIND_EXTERNAL_CORRELATION: return 24;
            default: return -1;
        }
    }

    /** Offsets of start, end and correlation id in a record of {@code kind}; -1 where it has none. */
    private static int[] fields(int kind) {
        switch (kind) {
            case KIND_MEMCPY:
            case KIND_MEMSET: return new int[] {16, 24, 44};
            case KIND_KERNEL:
            case KIND_CONCURRENT_KERNEL: return new int[] {16, 24, 92};
            case KIND_DRIVER:
            case KIND_RUNTIME: return new int[] {8, 16, 32};
            case KIND_EXTERNAL_CORRELATION: return new int[] {-1, -1, 16};
            default: return new int[] {-1, -1, -1};
        }
    }

    /**
     * {@code SyntheticCapture OUT.fltrbuf RECORDS [OPS.jsonl]}: writes a capture of at least RECORDS
     * records, and its ops when a path is given.
     */
    public static void main(String[] args) {
        SyntheticCapture capture = new SyntheticCapture();
        int repetitions = capture.repetitionsFor(Long.parseLong(args[1]));
        capture.write(Path.of(args[0]), repetitions);
        if (args.length > 2) {
            capture.writeOps(Path.of(args[2]), repetitions);
        }
        System.out.println(args[0] + ": " + repetitions + " repetitions, "
                + repetitions * capture.recordsPerRepetition() + " records");
    }
}
