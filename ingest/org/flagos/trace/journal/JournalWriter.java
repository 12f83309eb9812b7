package org.flagos.trace.journal;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.CRC32;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.StoreFileListener;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;
import net.openhft.chronicle.wire.WriteMarshallable;
import org.flagos.trace.ingest.CaptureFormatException;
import org.flagos.trace.ingest.HostMark;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.model.BufferTap;
import org.flagos.trace.model.ClockAnchor;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.DeviceProperties;

/**
 * Appends a capture to a journal (a Chronicle Queue directory, schema {@link JournalSchema}) as it
 * arrives: raw vendor buffers, names, the clock mapping, host ops, and the stop marker. Every
 * document is in the queue's memory-mapped file once its append returns, so a process killed
 * afterwards loses none of it. Thread-safe (one appender, under this object's lock): vendor buffer
 * threads and user threads closing ops may call concurrently.
 *
 * <p>At the start of every cycle the session, devices, clock and every name so far are written
 * again, so that any suffix of cycles a flight recorder retains replays on its own. A flight
 * recorder ({@link JournalOptions#isFlightRecorder()}) deletes its oldest cycles when a new one
 * starts, never the one being written; its size bound counts the documents' bytes (Chronicle's
 * index pages and the sparse preallocation of each cycle file come on top).
 *
 * <p>A failed append (disk full) stops the journal: later appends do nothing and {@link #close()}
 * reports the failure. Appends never throw into a vendor's callback.
 */
public final class JournalWriter implements BufferTap, AutoCloseable {
    private final JournalOptions options;
    private final JournalSession start;
    private final SingleChronicleQueue queue;
    private final ExcerptAppender appender;
    private final JournalDocumentSet docs = new JournalDocumentSet();
    private final CRC32 crc = new CRC32();
    private final Map<Long, String> names = new HashMap<>();
    private final TreeMap<Integer, Long> cycleBytes = new TreeMap<>();
    private final Map<Integer, File> cycleFiles = new ConcurrentHashMap<>();
    private DeviceClockMapping clock;
    private long seq;
    private int cycle;
    private long buffers;
    private long ops;
    private long deletedCycles;
    private boolean stopped;
    private boolean closed;
    private Throwable failure;

    private JournalWriter(JournalOptions options, JournalSession start) {
        this.options = options;
        this.start = start;
        this.queue = SingleChronicleQueueBuilder.single(options.dir().toFile())
                .rollCycle(options.roll().cycle())
                .blockSize(JournalSchema.BLOCK_BYTES)
                .timeProvider(options.clockMillis()::getAsLong)
                .storeFileListener(new CycleFiles(cycleFiles))
                .build();
        this.appender = queue.createAppender();
        appender.singleThreadedCheckDisabled(true); // callers are serialized by this object's lock
        docs.buffer.part = new byte[JournalSchema.WRITE_CHUNK_BYTES];
        docs.session.id = System.nanoTime() ^ ProcessHandle.current().pid() << 32;
        this.cycle = Integer.MIN_VALUE;
    }

    /**
     * Opens a journal in an empty (or absent) directory and writes the session's start.
     *
     * @throws CaptureFormatException when the directory already holds files
     */
    public static JournalWriter open(JournalOptions options, JournalSession session) throws IOException {
        ChronicleSettings.apply();
        Path dir = options.dir();
        if (Files.exists(dir)) {
            if (!Files.isDirectory(dir)) {
                throw new CaptureFormatException("journal " + dir + " is a file, not a directory: give --journal a new or empty"
                        + " directory");
            }
            try (var entries = Files.list(dir)) {
                if (entries.findAny().isPresent()) {
                    throw new CaptureFormatException("journal directory " + dir + " is not empty: a journal is written into a new"
                            + " or empty directory");
                }
            }
        }
        Files.createDirectories(dir);
        JournalWriter writer = new JournalWriter(options, session);
        synchronized (writer) {
            writer.checkpoint(false);
            writer.cycle = writer.appender.cycle();
            if (writer.failure != null) {
                writer.queue.close();
                throw new IOException("writing the journal in " + dir + " failed: " + reason(writer.failure)
                        + "; check its free space and permissions", writer.failure);
            }
        }
        return writer;
    }

    /** Journals one host op (when it closed). */
    public synchronized void op(HostOp op) {
        if (stopped) {
            return;
        }
        docs.op.name = op.name();
        docs.op.externalId = op.externalId().value();
        docs.op.thread = op.thread();
        docs.op.threadName = op.threadName();
        docs.op.startNs = op.startNs();
        docs.op.endNs = op.endNs();
        docs.op.args = op.args() == null ? null : op.args().toJson();
        docs.op.stack = op.stack() == null ? null : op.stack().framesJson();
        docs.op.annotation = op.annotation();
        append(JournalSchema.OP, docs.op, docs.op.seq = seq);
        ops++;
    }

    /** Journals one mark (a replayed capture's, in its file's order). */
    public synchronized void mark(HostMark mark) {
        if (stopped) {
            return;
        }
        docs.mark.name = mark.name();
        docs.mark.domain = mark.domain();
        docs.mark.pid = mark.pid();
        docs.mark.thread = mark.thread();
        docs.mark.tsNs = mark.tsNs();
        append(JournalSchema.MARK, docs.mark, docs.mark.seq = seq);
    }

    /** Journals one raw vendor buffer, in parts of at most {@link JournalSchema#WRITE_CHUNK_BYTES}. */
    @Override
    public synchronized void buffer(int dumpVendor, ByteBuffer validBytes) {
        if (stopped) {
            return;
        }
        ByteBuffer bytes = validBytes.duplicate();
        int length = bytes.remaining();
        if (length > JournalSchema.MAX_BUFFER_BYTES) {
            fail(new IOException("a vendor buffer of " + length + " bytes exceeds the journal's "
                    + JournalSchema.MAX_BUFFER_BYTES + "-byte bound"));
            return;
        }
        long atNs = start.live() ? options.clockMillis().getAsLong() * 1_000_000L : JournalSchema.NO_TIME;
        int offset = 0;
        do {
            int part = Math.min(JournalSchema.WRITE_CHUNK_BYTES, length - offset);
            bytes.get(docs.buffer.part, 0, part);
            crc.reset();
            crc.update(docs.buffer.part, 0, part);
            docs.buffer.vendor = dumpVendor;
            docs.buffer.layout = JournalSchema.LAYOUT_RAW_V1;
            docs.buffer.atNs = atNs;
            docs.buffer.length = length;
            docs.buffer.offset = offset;
            docs.buffer.crc = (int) crc.getValue();
            docs.buffer.partLength = part;
            append(JournalSchema.BUFFER, docs.buffer, docs.buffer.seq = seq);
            offset += part;
        } while (offset < length);
        buffers++;
    }

    @Override
    public synchronized void kernelName(long handle, String vendorName) {
        if (stopped || vendorName.equals(names.put(handle, vendorName))) {
            return;
        }
        writeName(handle, vendorName);
    }

    @Override
    public synchronized void clock(DeviceClockMapping mapping) {
        if (stopped || mapping.equals(clock)) {
            return;
        }
        int from = 0; // the knots written already stay: only the first that differs and those after it are written
        while (clock != null && from < clock.knots() && from < mapping.knots() && clock.knotVendorNs(from) == mapping.knotVendorNs(from)
                && clock.knotEpochNs(from) == mapping.knotEpochNs(from) && clock.knotRate(from) == mapping.knotRate(from)) {
            from++;
        }
        clock = mapping;
        writeClock(from == mapping.knots() ? mapping.knots() - 1 : from);
    }

    /**
     * Journals a clock anchor taken after the session started (its stop anchor: the start one is in
     * the session's metadata), so a replay states the same clock drift a live trace does.
     */
    public synchronized void anchor(ClockAnchor anchor) {
        if (stopped) {
            return;
        }
        docs.anchor.at = anchor.at();
        docs.anchor.realtimeNs = anchor.realtimeNs();
        docs.anchor.monotonicNs = anchor.monotonicNs();
        docs.anchor.traceNs = anchor.traceNs();
        docs.anchor.boundNs = anchor.boundNs();
        append(JournalSchema.ANCHOR, docs.anchor, docs.anchor.seq = seq);
    }

    /** Writes the stop marker: the capture window ends at {@code endNs}; later appends are ignored. */
    public synchronized void stop(long endNs) {
        if (stopped) {
            return;
        }
        docs.stop.endNs = endNs;
        docs.stop.buffers = buffers;
        docs.stop.ops = ops;
        append(JournalSchema.STOP, docs.stop, docs.stop.seq = seq);
        stopped = true;
    }

    /**
     * Ends the journal and closes the queue: when {@link #stop} was not called, a stop marker without
     * an end time is appended first, so that a reader can tell a journal that was closed from one
     * whose recorder was killed (which has no stop marker). Throws when an append had failed (the
     * journal holds everything before it).
     */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        stop(JournalSchema.NO_TIME);
        closed = true;
        try {
            queue.close();
        } catch (RuntimeException | InternalError e) { // a mapped write that faults shows here too (MappedFault)
            fail(e);
        }
        if (failure != null) {
            throw new IOException("writing the journal in " + options.dir() + " failed after " + seq + " documents: " + reason(failure)
                    + "; the journal holds every document before the failure; check its free space and permissions", failure);
        }
    }

    /** Documents appended. */
    public synchronized long documents() {
        return seq;
    }

    /** Vendor buffers appended (whole ones). */
    public synchronized long buffers() {
        return buffers;
    }

    /** Cycles a flight recorder deleted. */
    public synchronized long deletedCycles() {
        return deletedCycles;
    }

    public JournalOptions options() {
        return options;
    }

    private void checkpoint(boolean repeat) {
        docs.session.traceName = start.traceName();
        docs.session.source = start.source();
        docs.session.startNs = start.startNs();
        docs.session.pid = start.pid();
        docs.session.repeat = repeat;
        docs.session.metadata.clear();
        docs.session.metadata.putAll(start.metadata());
        append(JournalSchema.SESSION, docs.session, docs.session.seq = seq);
        for (DeviceProperties device : start.devices()) {
            docs.device.device = device;
            append(JournalSchema.DEVICE, docs.device, docs.device.seq = seq);
        }
        if (clock != null) {
            writeClock(0);
        }
        for (Map.Entry<Long, String> entry : names.entrySet()) {
            writeName(entry.getKey(), entry.getValue());
        }
    }

    private void writeName(long handle, String vendorName) {
        docs.name.handle = handle;
        docs.name.name = vendorName;
        append(JournalSchema.NAME, docs.name, docs.name.seq = seq);
    }

    /** The clock's knots from {@code from} on, one document each. */
    private void writeClock(int from) {
        for (int i = from; i < clock.knots(); i++) {
            docs.clock.vendorNs = clock.knotVendorNs(i);
            docs.clock.epochNs = clock.knotEpochNs(i);
            docs.clock.rate = clock.knotRate(i);
            append(JournalSchema.CLOCK, docs.clock, docs.clock.seq = seq);
        }
    }

    /** Appends one document (whose seq the caller set to {@code docSeq}); a new cycle gets a checkpoint. */
    private void append(String type, WriteMarshallable doc, long docSeq) {
        if (failure != null) {
            return;
        }
        try {
            long size;
            try (DocumentContext dc = appender.writingDocument()) {
                long begin = dc.wire().bytes().writePosition();
                dc.wire().writeEventName(type).marshallable(doc);
                size = dc.wire().bytes().writePosition() - begin + 4; // + the document's 4-byte header
            }
            seq = docSeq + 1;
            int written = appender.cycle();
            cycleBytes.merge(written, size, Long::sum);
            if (written != cycle && cycle != Integer.MIN_VALUE) {
                cycle = written;
                checkpoint(true);
                retain();
            }
        } catch (Throwable e) { // never into a vendor callback or a user's op
            fail(e);
        }
    }

    /** Why an append failed, in words (an I/O failure's own message; never a class name). */
    static String reason(Throwable e) {
        if (MappedFault.is(e)) {
            return MappedFault.WORDS;
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = t.getMessage();
            if (t instanceof IOException && m != null && !m.isBlank()) {
                return m.strip();
            }
        }
        return e instanceof OutOfMemoryError ? "out of memory" : "the queue could not be written (an unexpected failure)";
    }

    private void fail(Throwable e) {
        if (failure == null) {
            failure = e;
        }
    }

    /** Deletes the oldest whole cycles past the size or age bound; never the current one. */
    private void retain() throws IOException {
        if (!options.isFlightRecorder()) {
            return;
        }
        long total = 0;
        for (long bytes : cycleBytes.values()) {
            total += bytes;
        }
        long now = options.clockMillis().getAsLong();
        long cycleMs = options.roll().millis();
        boolean deleted = false;
        for (Iterator<Map.Entry<Integer, Long>> it = cycleBytes.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Integer, Long> entry = it.next();
            int c = entry.getKey();
            if (c == cycle) {
                break;
            }
            boolean tooOld = options.retainAge() != null && (c + 1L) * cycleMs <= now - options.retainAge().toMillis();
            boolean tooBig = options.retainBytes() > 0 && total > options.retainBytes();
            if (!tooOld && !tooBig) {
                break;
            }
            File file = cycleFiles.remove(c);
            if (file != null) {
                Files.deleteIfExists(file.toPath());
            }
            total -= entry.getValue();
            it.remove();
            deletedCycles++;
            deleted = true;
        }
        if (deleted) {
            queue.refreshDirectoryListing();
        }
    }

    /** Learns which file holds which cycle, for retention. */
    private static final class CycleFiles implements StoreFileListener {
        private final Map<Integer, File> files;

        CycleFiles(Map<Integer, File> files) {
            this.files = files;
        }

        @Override
        public void onAcquired(int cycle, File file) {
            files.put(cycle, file);
        }

        @Override
        public void onReleased(int cycle, File file) {
        }
    }

    /** For tests: the queue this writer appends to. */
    ChronicleQueue queue() {
        return queue;
    }
}
