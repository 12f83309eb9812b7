package org.flagos.trace.journal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;
import net.openhft.chronicle.wire.ReadMarshallable;
import net.openhft.chronicle.wire.SerializationStrategies;
import net.openhft.chronicle.wire.ValueIn;
import org.flagos.trace.ingest.CaptureFormatException;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.model.ClockAnchor;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.DeviceProperties;

/**
 * Reads a journal, read-only (a recorder may still be appending: what was appended after
 * {@link #open} is left for the next reader). {@link #scan()} reads every document but the buffer
 * payloads and finds the facts a replay needs first (names may follow the buffer that uses them);
 * {@link #replay} then hands over ops and reassembled buffers in journal order.
 *
 * <p>Damage (a cut or corrupted file, bytes of garbage after the last document, an empty cycle
 * file, a missing or out-of-order document, a payload whose CRC does not match) ends the read at
 * the last good document with one line saying where; everything before it is delivered. The cycle
 * files are walked with plain reads first ({@link JournalFiles}), so that Chronicle never maps past
 * a file's end nor waits for a header that will not come. An op document that is whole but whose
 * content cannot be an op (no name, an end before its start, a negative time or External id) is
 * skipped and counted ({@link JournalFacts#invalidOps()}); everything around it is delivered.
 */
public final class JournalReader implements AutoCloseable {
    private final Path dir;
    private final SingleChronicleQueue queue;
    private final long endIndex;
    private final StringBuilder type = new StringBuilder();
    private final JournalDocumentSet docs = new JournalDocumentSet();
    private final String filesDamage;
    private JournalFacts facts;
    private long lastGoodIndex = Long.MIN_VALUE;
    private String replayDamage;

    private JournalReader(Path dir, SingleChronicleQueue queue, JournalFiles.Extent extent) {
        this.dir = dir;
        this.queue = queue;
        this.endIndex = extent.endIndex();
        this.filesDamage = extent.damage();
    }

    /** Opens the journal in {@code dir}; a CaptureFormatException when it is none. */
    public static JournalReader open(Path dir) {
        ChronicleSettings.apply();
        if (!Files.isDirectory(dir)) {
            throw new CaptureFormatException(dir + ": no such journal directory");
        }
        if (!Files.exists(dir.resolve("metadata.cq4t"))) {
            throw new CaptureFormatException(dir + ": a directory that is not a flagtrace journal (it has no metadata.cq4t);"
                    + " a journal is the directory that --journal writes");
        }
        String notRegular = JournalFiles.notRegular(dir); // before Chronicle opens any: a FIFO would block the open
        if (notRegular != null) {
            throw new CaptureFormatException(dir + ": cannot read the journal: " + notRegular);
        }
        SingleChronicleQueue queue;
        try {
            queue = SingleChronicleQueueBuilder.single(dir.toFile()).readOnly(true).timeoutMS(WAIT_MS).build();
        } catch (RuntimeException | InternalError e) {
            throw new CaptureFormatException(dir + ": cannot open the journal: its metadata.cq4t is damaged or is not a"
                    + " journal's" + because(e) + "; only a directory written by --journal can be exported", e);
        }
        try {
            return new JournalReader(dir, queue, JournalFiles.walk(dir, queue));
        } catch (RuntimeException | InternalError e) {
            queue.close();
            throw new CaptureFormatException(dir + ": cannot list the journal's cycle files" + because(e)
                    + "; only a directory written by --journal can be exported", e);
        }
    }

    /**
     * How long Chronicle may wait for a cycle file's header (its default is seconds, spent at each
     * tailer): the walk keeps a reader away from headerless files, so this only bounds a surprise.
     */
    private static final long WAIT_MS = 500;

    /** True when {@code path} looks like a journal directory (holds a queue's metadata file). */
    public static boolean isJournal(Path path) {
        return Files.isDirectory(path) && Files.exists(path.resolve("metadata.cq4t"));
    }

    /**
     * Reads every document, checking each buffer part's CRC, and finds the facts a replay needs;
     * call once, before {@link #replay} or {@link #buffers}.
     */
    public JournalFacts scan() {
        if (endIndex < 0) {
            throw new CaptureFormatException(dir + ": " + (filesDamage == null ? "the journal is empty"
                    : "the journal holds no readable document: its " + filesDamage));
        }
        Map<Integer, DeviceProperties> devices = new TreeMap<>();
        Map<Long, String> names = new HashMap<>();
        Map<String, String> metadata = new LinkedHashMap<>();
        String traceName = null;
        String source = null;
        long startNs = JournalSchema.NO_TIME;
        long stopNs = JournalSchema.NO_TIME;
        long lastNs = JournalSchema.NO_TIME;
        boolean ended = false;
        DeviceClockMapping clock = DeviceClockMapping.IDENTITY;
        List<ClockAnchor> anchors = new ArrayList<>();
        int vendor = -1;
        long firstSeq = -1;
        long expected = -1;
        long documents = 0;
        long buffers = 0;
        long ops = 0;
        long marks = 0;
        long invalidOps = 0;
        String firstInvalidOp = null;
        long partsOpen = -1; // bytes of the buffer being reassembled, -1 when none
        String damage = null;
        Bytes<?> scratch = Bytes.allocateElasticOnHeap(JournalSchema.CHUNK_BYTES);
        CRC32 crc = new CRC32();
        byte[] part = new byte[0];
        ExcerptTailer tailer = queue.createTailer();
        docs.buffer.payload = scratch;
        boolean last = false;
        try {
            while (!last) {
                long seq;
                try (DocumentContext dc = tailer.readingDocument()) {
                    if (!dc.isPresent() || dc.index() > endIndex) {
                        break;
                    }
                    last = dc.index() == endIndex; // never ask Chronicle for a document past the walked files
                    ValueIn in = dc.wire().readEventName(type);
                    String t = type.toString();
                    switch (t) {
                        case JournalSchema.SESSION:
                            read(in, docs.session);
                            seq = docs.session.seq;
                            if (docs.session.schema > JournalSchema.VERSION || docs.session.schema < 1) {
                                throw new CaptureFormatException(dir + ": journal schema " + docs.session.schema
                                        + " is not one this build reads (1 to " + JournalSchema.VERSION + "); export it with the"
                                        + " flagtrace version that wrote it");
                            }
                            traceName = docs.session.traceName;
                            source = docs.session.source;
                            startNs = docs.session.startNs;
                            metadata.putAll(docs.session.metadata);
                            lastNs = Math.max(lastNs, startNs);
                            break;
                        case JournalSchema.DEVICE:
                            read(in, docs.device);
                            seq = docs.device.seq;
                            devices.put(docs.device.device.id(), docs.device.device);
                            break;
                        case JournalSchema.CLOCK:
                            read(in, docs.clock);
                            seq = docs.clock.seq;
                            clock = docs.clock.onto(clock);
                            break;
                        case JournalSchema.NAME:
                            read(in, docs.name);
                            seq = docs.name.seq;
                            if (docs.name.name == null) {
                                throw new JournalDocuments.Damage("name document " + seq + " has no name");
                            }
                            names.put(docs.name.handle, docs.name.name);
                            break;
                        case JournalSchema.OP:
                            read(in, docs.op);
                            seq = docs.op.seq;
                            String invalid = docs.op.invalid();
                            if (invalid != null) {
                                if (invalidOps++ == 0) {
                                    firstInvalidOp = "document " + seq + ": " + invalid;
                                }
                            } else {
                                ops++;
                                lastNs = Math.max(lastNs, docs.op.endNs);
                            }
                            break;
                        case JournalSchema.BUFFER:
                            read(in, docs.buffer);
                            seq = docs.buffer.seq;
                            String bad = checkPart(partsOpen);
                            if (bad == null && scratch.readRemaining() != docs.buffer.partLength) {
                                bad = "the buffer part holds " + scratch.readRemaining() + " bytes, its header says " + docs.buffer.partLength;
                            }
                            if (bad == null) {
                                if (part.length < docs.buffer.partLength) {
                                    part = new byte[docs.buffer.partLength]; // bounded by CHUNK_BYTES (checkPart)
                                }
                                scratch.read(part, 0, docs.buffer.partLength);
                                crc.reset();
                                crc.update(part, 0, docs.buffer.partLength);
                                if ((int) crc.getValue() != docs.buffer.crc) {
                                    bad = "the buffer's bytes fail their CRC (corrupted)";
                                }
                            }
                            if (bad != null) {
                                damage = "document " + seq + ": " + bad;
                                break;
                            }
                            partsOpen = docs.buffer.offset + (long) docs.buffer.partLength;
                            if (partsOpen == docs.buffer.length) {
                                partsOpen = -1;
                                buffers++;
                                vendor = vendor == -1 ? docs.buffer.vendor : vendor;
                                if (docs.buffer.atNs != JournalSchema.NO_TIME) {
                                    lastNs = Math.max(lastNs, docs.buffer.atNs);
                                }
                            }
                            break;
                        case JournalSchema.ANCHOR:
                            read(in, docs.anchor);
                            seq = docs.anchor.seq;
                            if (anchors.size() < JournalSchema.MAX_ANCHORS) {
                                try {
                                    anchors.add(new ClockAnchor(docs.anchor.at, docs.anchor.realtimeNs, docs.anchor.monotonicNs,
                                            docs.anchor.traceNs, docs.anchor.boundNs));
                                } catch (IllegalArgumentException e) {
                                    throw new JournalDocuments.Damage("anchor document " + seq + ": " + e.getMessage());
                                }
                            }
                            break;
                        case JournalSchema.MARK:
                            read(in, docs.mark);
                            seq = docs.mark.seq;
                            String notMark = docs.mark.invalid();
                            if (notMark != null) {
                                throw new JournalDocuments.Damage("mark document " + seq + ": " + notMark);
                            }
                            marks++;
                            break;
                        case JournalSchema.STOP:
                            read(in, docs.stop);
                            seq = docs.stop.seq;
                            stopNs = docs.stop.endNs;
                            ended = true;
                            break;
                        default:
                            throw new JournalDocuments.Damage("a document of unknown type '" + t + "'");
                    }
                    if (damage != null) {
                        break;
                    }
                    if (firstSeq < 0) {
                        firstSeq = seq;
                    } else if (seq != expected) {
                        damage = "document " + seq + " follows document " + (expected - 1) + " (" + (seq > expected
                                ? (seq - expected) + " documents missing)" : "out of order)");
                        break;
                    }
                    expected = seq + 1;
                    documents++;
                    lastGoodIndex = dc.index();
                } catch (CaptureFormatException e) {
                    throw e;
                } catch (RuntimeException | InternalError e) { // InternalError: a mapping faulted
                    damage = "the document after document " + (expected - 1) + " cannot be read (" + describe(e) + ")";
                    break;
                }
            }
        } finally {
            docs.buffer.payload = null;
            scratch.releaseLast();
        }
        if (damage == null && lastGoodIndex < endIndex) {
            damage = "the queue holds documents up to index " + Long.toHexString(endIndex) + " but reading stopped after document "
                    + (expected - 1) + " (index " + Long.toHexString(lastGoodIndex) + "): a damaged or cut header";
        }
        if (damage == null && partsOpen >= 0) {
            damage = "the last vendor buffer is cut short (" + partsOpen + " of " + docs.buffer.length + " bytes journaled)";
        }
        if (damage == null && filesDamage != null) {
            damage = "its " + filesDamage;
        }
        if (traceName == null && documents > 0) {
            throw new CaptureFormatException(dir + ": journal has no session document in what is left of it"
                    + (damage == null ? "" : " (" + damage + ")"));
        }
        if (documents == 0) {
            throw new CaptureFormatException(dir + ": the journal holds no readable document" + (damage == null ? "" : ": " + damage));
        }
        if (stopNs != JournalSchema.NO_TIME) {
            lastNs = Math.max(lastNs, stopNs);
        }
        facts = new JournalFacts(traceName, source == null ? dir.toString() : source,
                Map.copyOf(metadata), startNs, stopNs, lastNs, List.copyOf(devices.values()), clock, Map.copyOf(names), vendor,
                Math.max(firstSeq, 0), documents, buffers, ops, damage == null ? null : dir + ": " + damage, ended,
                invalidOps, firstInvalidOp, List.copyOf(anchors), marks);
        return facts;
    }

    /**
     * Hands every valid op and whole buffer up to where {@link #scan()} stopped to {@code visitor},
     * in journal order; returns the damage that ended the read (the scan's, or a payload that fails
     * its CRC), or null.
     */
    public String replay(JournalVisitor visitor) {
        return read(visitor, true);
    }

    /**
     * As {@link #replay} but hands over the buffers only: a replay takes the ops from
     * {@link #ops()} and interleaves them with the records by time, as a capture's replay does.
     */
    public String buffers(JournalVisitor visitor) {
        return read(visitor, false);
    }

    /**
     * The valid ops up to where {@link #scan()} stopped, in journal order (the order they closed
     * in), one at a time; a damaged document ends them. Call after {@link #scan()}.
     */
    public JournalOpCursor ops() {
        if (facts == null) {
            throw new IllegalStateException("scan() first");
        }
        return new JournalOpCursor(dir, queue.createTailer(), lastGoodIndex);
    }

    /**
     * The marks up to where {@link #scan()} stopped, in journal order, one at a time; a damaged document ends them.
     * Call after {@link #scan()}.
     */
    public JournalMarkCursor marks() {
        if (facts == null) {
            throw new IllegalStateException("scan() first");
        }
        return new JournalMarkCursor(dir, queue.createTailer(), lastGoodIndex);
    }

    private String read(JournalVisitor visitor, boolean withOps) {
        if (facts == null) {
            throw new IllegalStateException("scan() first");
        }
        if (lastGoodIndex == Long.MIN_VALUE) {
            return facts.damage();
        }
        Bytes<?> scratch = Bytes.allocateElasticOnHeap(JournalSchema.CHUNK_BYTES);
        docs.buffer.payload = scratch;
        byte[] assembly = new byte[0];
        CRC32 crc = new CRC32();
        ExcerptTailer tailer = queue.createTailer();
        long seq = -1;
        boolean last = false;
        try {
            while (!last) {
                try (DocumentContext dc = tailer.readingDocument()) {
                    if (!dc.isPresent() || dc.index() > lastGoodIndex) {
                        break;
                    }
                    last = dc.index() == lastGoodIndex;
                    ValueIn in = dc.wire().readEventName(type);
                    if (JournalSchema.OP.contentEquals(type)) {
                        if (!withOps) {
                            continue;
                        }
                        read(in, docs.op);
                        seq = docs.op.seq;
                        if (docs.op.invalid() == null) {
                            visitor.op(docs.op.toHostOp());
                        }
                    } else if (JournalSchema.BUFFER.contentEquals(type)) {
                        read(in, docs.buffer);
                        seq = docs.buffer.seq;
                        int part = docs.buffer.partLength;
                        if (scratch.readRemaining() != part) {
                            replayDamage = dir + ": document " + seq + ": the buffer part holds " + scratch.readRemaining()
                                    + " bytes, its header says " + part;
                            break;
                        }
                        if (docs.buffer.offset == 0 && assembly.length < docs.buffer.length) {
                            assembly = new byte[docs.buffer.length]; // bounded: checkPart refused more than MAX_BUFFER_BYTES
                        }
                        scratch.read(assembly, docs.buffer.offset, part);
                        crc.reset();
                        crc.update(assembly, docs.buffer.offset, part);
                        if ((int) crc.getValue() != docs.buffer.crc) {
                            replayDamage = dir + ": document " + seq + ": the buffer's bytes fail their CRC (corrupted since the scan)";
                            break;
                        }
                        if (docs.buffer.offset + part == docs.buffer.length) {
                            ByteBuffer bytes = ByteBuffer.wrap(assembly, 0, docs.buffer.length).slice().order(ByteOrder.LITTLE_ENDIAN);
                            visitor.buffer(docs.buffer.vendor, docs.buffer.layout, bytes);
                        }
                    }
                }
            }
        } catch (RuntimeException | InternalError e) {
            if (e instanceof CaptureFormatException) {
                throw e;
            }
            replayDamage = dir + ": the document after document " + seq + " cannot be read (" + describe(e) + ")";
        } finally {
            docs.buffer.payload = null;
            scratch.releaseLast();
        }
        return replayDamage != null ? replayDamage : facts.damage();
    }

    static void read(ValueIn in, ReadMarshallable doc) {
        in.marshallable(doc, SerializationStrategies.MARSHALLABLE);
    }

    /** Why this buffer part cannot follow the open one, or null when it fits. */
    private String checkPart(long open) {
        JournalDocuments.Buffer b = docs.buffer;
        if (b.layout != JournalSchema.LAYOUT_RAW_V1) {
            throw new CaptureFormatException(dir + ": buffer layout " + b.layout + " is not one this build reads ("
                    + JournalSchema.LAYOUT_RAW_V1 + ")");
        }
        if (b.length <= 0 || b.length > JournalSchema.MAX_BUFFER_BYTES) {
            return "buffer length " + b.length + " is outside (0, " + JournalSchema.MAX_BUFFER_BYTES + "]";
        }
        if (b.partLength <= 0 || b.partLength > JournalSchema.CHUNK_BYTES || b.partLength > b.length - (long) b.offset) {
            return "buffer part of " + b.partLength + " bytes at offset " + b.offset + " does not fit its " + b.length + "-byte buffer";
        }
        if (b.offset < 0 || b.offset >= b.length || (open < 0 ? b.offset != 0 : b.offset != open)) {
            return "buffer part at offset " + b.offset + " where " + (open < 0 ? 0 : open) + " was expected";
        }
        return null;
    }

    @Override
    public void close() {
        queue.close();
    }

    /** What went wrong reading a document, in words: the journal's own reason, else what it means. */
    static String describe(Throwable e) {
        if (e instanceof JournalDocuments.Damage) {
            return e.getMessage();
        }
        if (e instanceof InternalError) {
            return "its bytes run past the end of the file";
        }
        return "its bytes do not decode as a journal document";
    }

    /** {@code " (REASON)"} from a Chronicle failure when its message is plain words, else nothing. */
    private static String because(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = t.getMessage();
            if (m != null && !m.isBlank() && !m.contains("Exception") && !m.contains("java.") && !m.contains("net.openhft")
                    && !m.contains("\n")) {
                return " (" + m.strip() + ")";
            }
        }
        return "";
    }
}
