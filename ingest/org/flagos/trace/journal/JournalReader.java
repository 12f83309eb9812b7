package org.flagos.trace.journal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
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
import org.flagos.trace.pipeline.DeviceClockMapping;
import org.flagos.trace.pipeline.DeviceProperties;
import org.flagos.trace.pipeline.ExternalId;

/**
 * Reads a journal, read-only (a recorder may still be appending: what was appended after
 * {@link #open} is left for the next reader). {@link #scan()} reads every document but the buffer
 * payloads and finds the facts a replay needs first (names may follow the buffer that uses them);
 * {@link #replay} then hands over ops and reassembled buffers in journal order.
 *
 * <p>Damage (a cut or corrupted file, a missing or out-of-order document, a payload whose CRC does
 * not match) ends the read at the last good document with one line saying where; everything
 * before it is delivered.
 */
public final class JournalReader implements AutoCloseable {
    private final Path dir;
    private final SingleChronicleQueue queue;
    private final long endIndex;
    private final StringBuilder type = new StringBuilder();
    private final JournalDocuments.Session sessionDoc = new JournalDocuments.Session();
    private final JournalDocuments.Device deviceDoc = new JournalDocuments.Device();
    private final JournalDocuments.Clock clockDoc = new JournalDocuments.Clock();
    private final JournalDocuments.Name nameDoc = new JournalDocuments.Name();
    private final JournalDocuments.Op opDoc = new JournalDocuments.Op();
    private final JournalDocuments.Buffer bufferDoc = new JournalDocuments.Buffer();
    private final JournalDocuments.Stop stopDoc = new JournalDocuments.Stop();
    private JournalFacts facts;
    private boolean indexUnreadable;
    private long lastGoodIndex = Long.MIN_VALUE;
    private String replayDamage;

    private JournalReader(Path dir, SingleChronicleQueue queue) {
        this.dir = dir;
        this.queue = queue;
        long end;
        try {
            end = queue.lastIndex();
        } catch (InternalError e) {
            // A cut cycle file faults where its index points past the end; the scan then finds the
            // last whole document itself.
            end = Long.MAX_VALUE;
            indexUnreadable = true;
        }
        this.endIndex = end;
    }

    /** Opens the journal in {@code dir}; a CaptureFormatException when it is none. */
    public static JournalReader open(Path dir) {
        ChronicleSettings.apply();
        if (!Files.isDirectory(dir)) {
            throw new CaptureFormatException(dir + ": no such journal directory");
        }
        if (!Files.exists(dir.resolve("metadata.cq4t"))) {
            throw new CaptureFormatException(dir + ": not a flagtrace journal (no Chronicle Queue metadata.cq4t in it)");
        }
        try {
            return new JournalReader(dir, SingleChronicleQueueBuilder.single(dir.toFile()).readOnly(true).build());
        } catch (RuntimeException | InternalError e) {
            throw new CaptureFormatException(dir + ": cannot open the journal (" + oneLine(e) + ")", e);
        }
    }

    /** True when {@code path} looks like a journal directory (holds a queue's metadata file). */
    public static boolean isJournal(Path path) {
        return Files.isDirectory(path) && Files.exists(path.resolve("metadata.cq4t"));
    }

    /** Reads every document but the payloads; call once, before {@link #replay}. */
    public JournalFacts scan() {
        Map<Integer, DeviceProperties> devices = new TreeMap<>();
        Map<Long, String> names = new HashMap<>();
        Map<String, String> metadata = new LinkedHashMap<>();
        String traceName = null;
        String source = null;
        long startNs = JournalSchema.NO_TIME;
        long stopNs = JournalSchema.NO_TIME;
        long lastNs = JournalSchema.NO_TIME;
        DeviceClockMapping clock = DeviceClockMapping.IDENTITY;
        int vendor = -1;
        long firstSeq = -1;
        long expected = -1;
        long documents = 0;
        long buffers = 0;
        long ops = 0;
        long partsOpen = -1; // bytes of the buffer being reassembled, -1 when none
        String damage = null;
        ExcerptTailer tailer = queue.createTailer();
        bufferDoc.payload = null;
        while (true) {
            long seq;
            try (DocumentContext dc = tailer.readingDocument()) {
                if (!dc.isPresent() || dc.index() > endIndex) {
                    break;
                }
                ValueIn in = dc.wire().readEventName(type);
                String t = type.toString();
                switch (t) {
                    case JournalSchema.SESSION:
                        read(in, sessionDoc);
                        seq = sessionDoc.seq;
                        if (sessionDoc.schema > JournalSchema.VERSION || sessionDoc.schema < 1) {
                            throw new CaptureFormatException(dir + ": journal schema " + sessionDoc.schema
                                    + " is not one this build reads (1 to " + JournalSchema.VERSION + ")");
                        }
                        traceName = sessionDoc.traceName;
                        source = sessionDoc.source;
                        startNs = sessionDoc.startNs;
                        metadata.putAll(sessionDoc.metadata);
                        lastNs = Math.max(lastNs, startNs);
                        break;
                    case JournalSchema.DEVICE:
                        read(in, deviceDoc);
                        seq = deviceDoc.seq;
                        devices.put(deviceDoc.device.id(), deviceDoc.device);
                        break;
                    case JournalSchema.CLOCK:
                        read(in, clockDoc);
                        seq = clockDoc.seq;
                        clock = clockDoc.mapping();
                        break;
                    case JournalSchema.NAME:
                        read(in, nameDoc);
                        seq = nameDoc.seq;
                        names.put(nameDoc.handle, nameDoc.name);
                        break;
                    case JournalSchema.OP:
                        read(in, opDoc);
                        seq = opDoc.seq;
                        ops++;
                        lastNs = Math.max(lastNs, opDoc.endNs);
                        break;
                    case JournalSchema.BUFFER:
                        read(in, bufferDoc);
                        seq = bufferDoc.seq;
                        String bad = checkPart(partsOpen);
                        if (bad != null) {
                            damage = "document " + seq + ": " + bad;
                            break;
                        }
                        partsOpen = bufferDoc.offset + (long) bufferDoc.partLength;
                        if (partsOpen == bufferDoc.length) {
                            partsOpen = -1;
                            buffers++;
                            vendor = vendor == -1 ? bufferDoc.vendor : vendor;
                            if (bufferDoc.atNs != JournalSchema.NO_TIME) {
                                lastNs = Math.max(lastNs, bufferDoc.atNs);
                            }
                        }
                        break;
                    case JournalSchema.STOP:
                        read(in, stopDoc);
                        seq = stopDoc.seq;
                        stopNs = stopDoc.endNs;
                        break;
                    default:
                        throw new IllegalStateException("unknown document type '" + t + "'");
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
            } catch (RuntimeException | InternalError e) { // InternalError: a cut file's mapping faulted
                damage = "the document after document " + (expected - 1) + " cannot be read (" + oneLine(e) + ")";
                break;
            }
        }
        if (damage == null && indexUnreadable) {
            damage = "the queue's index cannot be read (a cut file?); every document up to document " + (expected - 1) + " was read";
        }
        if (damage == null && endIndex >= 0 && lastGoodIndex < endIndex) {
            damage = "the queue indexes documents up to " + Long.toHexString(endIndex) + " but reading stopped after document "
                    + (expected - 1) + " (index " + Long.toHexString(lastGoodIndex) + "): a damaged or cut header";
        }
        if (damage == null && partsOpen >= 0) {
            damage = "the last vendor buffer is cut short (" + partsOpen + " of " + bufferDoc.length + " bytes journaled)";
        }
        if (traceName == null && documents > 0) {
            throw new CaptureFormatException(dir + ": journal has no session document in what is left of it");
        }
        if (documents == 0 && damage == null) {
            throw new CaptureFormatException(dir + ": the journal is empty");
        }
        if (stopNs != JournalSchema.NO_TIME) {
            lastNs = Math.max(lastNs, stopNs);
        }
        facts = new JournalFacts(traceName == null ? dir.getFileName().toString() : traceName, source == null ? dir.toString() : source,
                Map.copyOf(metadata), startNs, stopNs, lastNs, List.copyOf(devices.values()), clock, Map.copyOf(names), vendor,
                Math.max(firstSeq, 0), documents, buffers, ops, damage == null ? null : dir + ": " + damage);
        return facts;
    }

    /**
     * Hands every op and whole buffer up to where {@link #scan()} stopped to {@code visitor}; returns
     * the damage that ended the read (the scan's, or a payload that fails its CRC), or null.
     */
    public String replay(JournalVisitor visitor) {
        if (facts == null) {
            throw new IllegalStateException("scan() first");
        }
        Bytes<?> scratch = Bytes.allocateElasticOnHeap(JournalSchema.CHUNK_BYTES);
        bufferDoc.payload = scratch;
        byte[] assembly = new byte[0];
        CRC32 crc = new CRC32();
        ExcerptTailer tailer = queue.createTailer();
        long seq = -1;
        try {
            while (true) {
                try (DocumentContext dc = tailer.readingDocument()) {
                    if (!dc.isPresent() || dc.index() > lastGoodIndex) {
                        break;
                    }
                    ValueIn in = dc.wire().readEventName(type);
                    if (JournalSchema.OP.contentEquals(type)) {
                        read(in, opDoc);
                        seq = opDoc.seq;
                        visitor.op(new HostOp(opDoc.name, new ExternalId(opDoc.externalId), opDoc.thread, opDoc.startNs, opDoc.endNs,
                                opDoc.threadName));
                    } else if (JournalSchema.BUFFER.contentEquals(type)) {
                        read(in, bufferDoc);
                        seq = bufferDoc.seq;
                        int part = bufferDoc.partLength;
                        if (scratch.readRemaining() != part) {
                            replayDamage = dir + ": document " + seq + ": the buffer part holds " + scratch.readRemaining()
                                    + " bytes, its header says " + part;
                            break;
                        }
                        if (bufferDoc.offset == 0 && assembly.length < bufferDoc.length) {
                            assembly = new byte[bufferDoc.length]; // bounded: checkPart refused more than MAX_BUFFER_BYTES
                        }
                        scratch.read(assembly, bufferDoc.offset, part);
                        crc.reset();
                        crc.update(assembly, bufferDoc.offset, part);
                        if ((int) crc.getValue() != bufferDoc.crc) {
                            replayDamage = dir + ": document " + seq + ": the buffer's bytes fail their CRC (corrupted)";
                            break;
                        }
                        if (bufferDoc.offset + part == bufferDoc.length) {
                            ByteBuffer bytes = ByteBuffer.wrap(assembly, 0, bufferDoc.length).slice().order(ByteOrder.LITTLE_ENDIAN);
                            visitor.buffer(bufferDoc.vendor, bufferDoc.layout, bytes);
                        }
                    }
                }
            }
        } catch (RuntimeException | InternalError e) {
            if (e instanceof CaptureFormatException) {
                throw e;
            }
            replayDamage = dir + ": the document after document " + seq + " cannot be read (" + oneLine(e) + ")";
        } finally {
            scratch.releaseLast();
        }
        return replayDamage != null ? replayDamage : facts.damage();
    }

    private static void read(ValueIn in, ReadMarshallable doc) {
        in.marshallable(doc, SerializationStrategies.MARSHALLABLE);
    }

    /** Why this buffer part cannot follow the open one, or null when it fits. */
    private String checkPart(long open) {
        JournalDocuments.Buffer b = bufferDoc;
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

    private static String oneLine(Throwable e) {
        String text = e.toString();
        int nl = text.indexOf('\n');
        return nl < 0 ? text : text.substring(0, nl);
    }
}
