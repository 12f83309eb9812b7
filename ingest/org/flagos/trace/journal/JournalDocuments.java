package org.flagos.trace.journal;

import java.util.LinkedHashMap;
import java.util.Map;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.wire.ReadMarshallable;
import net.openhft.chronicle.wire.WireIn;
import net.openhft.chronicle.wire.WireOut;
import net.openhft.chronicle.wire.WriteMarshallable;
import org.flagos.trace.ingest.HostMark;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.model.OpArgs;
import org.flagos.trace.model.OpStack;
import org.flagos.trace.ingest.OpDetailJson;

/**
 * The document types of schema v1, each marshalled with Chronicle Wire field by field (no
 * reflection, no generated code). One mutable instance per type is reused by a writer or a reader,
 * so that appending a buffer or an op allocates nothing. Field names are part of the schema.
 */
final class JournalDocuments {
    /** Opens a session, and repeats it (with every fact since) at the start of each cycle. */
    static final class Session implements WriteMarshallable, ReadMarshallable {
        long seq;
        int schema = JournalSchema.VERSION;
        long id;
        String traceName = "";
        String source = "";
        long startNs = JournalSchema.NO_TIME;
        long pid = -1;
        boolean repeat;
        final Map<String, String> metadata = new LinkedHashMap<>();

        @Override
        public void writeMarshallable(WireOut w) {
            w.write("seq").int64(seq).write("schema").int32(schema).write("id").int64(id)
                    .write("traceName").text(traceName).write("source").text(source)
                    .write("startNs").int64(startNs).write("pid").int64(pid).write("repeat").bool(repeat)
                    .write("metadata").marshallable(metadata);
            w.write("check").int64(~seq);
        }

        @Override
        public void readMarshallable(WireIn w) {
            seq = w.read("seq").int64();
            schema = w.read("schema").int32();
            id = w.read("id").int64();
            traceName = w.read("traceName").text();
            source = w.read("source").text();
            startNs = w.read("startNs").int64();
            pid = w.read("pid").int64();
            repeat = w.read("repeat").bool();
            metadata.clear();
            w.read("metadata").marshallableAsMap(String.class, String.class, metadata);
            check(w, seq);
        }
    }

    /** One device's properties (torch's field names). */
    static final class Device implements WriteMarshallable, ReadMarshallable {
        long seq;
        DeviceProperties device;

        @Override
        public void writeMarshallable(WireOut w) {
            DeviceProperties d = device;
            w.write("seq").int64(seq).write("id").int32(d.id()).write("name").text(d.name())
                    .write("totalGlobalMem").int64(d.totalGlobalMem())
                    .write("computeMajor").int32(d.computeMajor()).write("computeMinor").int32(d.computeMinor())
                    .write("maxThreadsPerBlock").int32(d.maxThreadsPerBlock())
                    .write("maxThreadsPerMultiprocessor").int32(d.maxThreadsPerMultiprocessor())
                    .write("regsPerBlock").int32(d.regsPerBlock()).write("warpSize").int32(d.warpSize())
                    .write("sharedMemPerBlock").int64(d.sharedMemPerBlock()).write("numSms").int32(d.numSms())
                    .write("regsPerMultiprocessor").int32(d.regsPerMultiprocessor())
                    .write("sharedMemPerBlockOptin").int64(d.sharedMemPerBlockOptin())
                    .write("sharedMemPerMultiprocessor").int64(d.sharedMemPerMultiprocessor());
            w.write("check").int64(~seq);
        }

        /** Reads and validates (the record's ranges): a value out of range throws IllegalArgumentException. */
        @Override
        public void readMarshallable(WireIn w) {
            seq = w.read("seq").int64();
            device = new DeviceProperties(w.read("id").int32(), w.read("name").text(), w.read("totalGlobalMem").int64(),
                    w.read("computeMajor").int32(), w.read("computeMinor").int32(), w.read("maxThreadsPerBlock").int32(),
                    w.read("maxThreadsPerMultiprocessor").int32(), w.read("regsPerBlock").int32(), w.read("warpSize").int32(),
                    w.read("sharedMemPerBlock").int64(), w.read("numSms").int32(), w.read("regsPerMultiprocessor").int32(),
                    w.read("sharedMemPerBlockOptin").int64(), w.read("sharedMemPerMultiprocessor").int64());
            check(w, seq);
        }
    }

    /**
     * One knot of the vendor clock's mapping to epoch ns ({@link DeviceClockMapping}), written as the
     * session adds it: read back with {@link DeviceClockMapping#withKnot}, so a knot replaces every
     * one at or after its vendor time (a journal of a single-line mapping, whose every document
     * starts at the session's first sample, reads as its last document).
     */
    static final class Clock implements WriteMarshallable, ReadMarshallable {
        long seq;
        long vendorNs;
        long epochNs;
        double rate = 1.0;

        /** {@code so far} (null: none yet) with this knot. */
        DeviceClockMapping onto(DeviceClockMapping soFar) {
            return soFar == null || soFar == DeviceClockMapping.IDENTITY ? new DeviceClockMapping(vendorNs, epochNs, rate)
                    : soFar.withKnot(vendorNs, epochNs, rate);
        }

        @Override
        public void writeMarshallable(WireOut w) {
            w.write("seq").int64(seq).write("vendorNs").int64(vendorNs).write("epochNs").int64(epochNs).write("rate").float64(rate);
            w.write("check").int64(~seq);
        }

        @Override
        public void readMarshallable(WireIn w) {
            seq = w.read("seq").int64();
            vendorNs = w.read("vendorNs").int64();
            epochNs = w.read("epochNs").int64();
            rate = w.read("rate").float64();
            check(w, seq);
        }
    }

    /** A name table entry: a kernel name pointer or an {@code ApiNameHandle}, and the vendor's name. */
    static final class Name implements WriteMarshallable, ReadMarshallable {
        long seq;
        long handle;
        String name;

        @Override
        public void writeMarshallable(WireOut w) {
            w.write("seq").int64(seq).write("handle").int64(handle).write("name").text(name);
            w.write("check").int64(~seq);
        }

        @Override
        public void readMarshallable(WireIn w) {
            seq = w.read("seq").int64();
            handle = w.read("handle").int64();
            name = w.read("name").text();
            check(w, seq);
        }
    }

    /** One mark ({@link HostMark}): an instant on a thread, no duration, no External id. */
    static final class Mark implements WriteMarshallable, ReadMarshallable {
        long seq;
        String name;
        /** Its domain's name, or null for the default one (then not written). */
        String domain;
        long pid;
        long thread;
        long tsNs;

        @Override
        public void writeMarshallable(WireOut w) {
            w.write("seq").int64(seq).write("name").text(name);
            if (domain != null) {
                w.write("domain").text(domain);
            }
            w.write("pid").int64(pid).write("thread").int64(thread).write("tsNs").int64(tsNs).write("check").int64(~seq);
        }

        @Override
        public void readMarshallable(WireIn w) {
            seq = w.read("seq").int64();
            name = w.read("name").text();
            domain = w.read("domain").text(); // absent: the default domain
            pid = w.read("pid").int64();
            thread = w.read("thread").int64();
            tsNs = w.read("tsNs").int64();
            check(w, seq);
        }

        /** Why this document cannot be a mark (no name, a negative time), or null when it can. */
        String invalid() {
            if (name == null) {
                return "the mark has no name";
            }
            return tsNs < 0 ? "mark '" + name + "' has a negative time (" + tsNs + ")" : null;
        }

        /** The mark; call only when {@link #invalid()} is null. */
        HostMark toHostMark() {
            return new HostMark(name, domain, pid, thread, tsNs);
        }
    }

    /** One host op range, journaled when it closes. */
    static final class Op implements WriteMarshallable, ReadMarshallable {
        long seq;
        String name;
        long externalId;
        long thread;
        String threadName;
        long startNs;
        long endNs;
        /** The op's args as JSON ({@link OpArgs#toJson()}), or null: none. Absent from documents of builds before args. */
        String args;
        /** The op's stack as a JSON array of frames, or null: none. */
        String stack;
        /** A user annotation ({@link HostOp#annotation()}); written only when true, absent from older builds' documents. */
        boolean annotation;
        private OpArgs parsedArgs;
        private OpStack parsedStack;

        @Override
        public void writeMarshallable(WireOut w) {
            w.write("seq").int64(seq).write("name").text(name).write("externalId").int64(externalId)
                    .write("thread").int64(thread).write("threadName").text(threadName).write("startNs").int64(startNs).write("endNs").int64(endNs);
            if (args != null) {
                w.write("args").text(args);
            }
            if (stack != null) {
                w.write("stack").text(stack);
            }
            if (annotation) {
                w.write("annotation").bool(true);
            }
            w.write("check").int64(~seq);
        }

        @Override
        public void readMarshallable(WireIn w) {
            seq = w.read("seq").int64();
            name = w.read("name").text();
            externalId = w.read("externalId").int64();
            thread = w.read("thread").int64();
            threadName = w.read("threadName").text();
            startNs = w.read("startNs").int64();
            endNs = w.read("endNs").int64();
            args = null;
            stack = null;
            parsedArgs = null;
            parsedStack = null;
            // Optional: absent from an op without them and from builds before them; a field that is not
            // there reads as null, and the reader stays where it was (JournalArgsTest).
            args = w.read("args").text();
            stack = w.read("stack").text();
            annotation = w.read("annotation").bool(); // absent (an op, or an older build's document): false
            check(w, seq);
        }

        /**
         * Why this whole document cannot be an op (no name, a negative External id or time, an end
         * before its start), or null when it can: the reader skips and counts such an op.
         */
        String invalid() {
            if (name == null) {
                return "the op has no name";
            }
            if (externalId < 0) {
                return "op '" + name + "' has a negative External id (" + externalId + ")";
            }
            if (startNs < 0 || endNs < 0) {
                return "op '" + name + "' has a negative time (start " + startNs + ", end " + endNs + ")";
            }
            if (endNs < startNs) {
                return "op '" + name + "' ends " + (startNs - endNs) + " ns before it starts";
            }
            try {
                parsedArgs = OpDetailJson.argsOf(args);
                parsedStack = OpDetailJson.stackOf(stack);
            } catch (IllegalArgumentException e) {
                return "op '" + name + "': " + e.getMessage();
            }
            return null;
        }

        /** The op; call only when {@link #invalid()} is null. */
        HostOp toHostOp() {
            return new HostOp(name, new ExternalId(externalId), thread, startNs, endNs, threadName, parsedArgs, parsedStack,
                    annotation);
        }
    }

    /** One part of a raw vendor buffer: bytes {@code [offset, offset + bytes)} of {@code length}. */
    static final class Buffer implements WriteMarshallable, ReadMarshallable {
        long seq;
        int vendor;
        int layout = JournalSchema.LAYOUT_RAW_V1;
        long atNs;
        int length;
        int offset;
        int crc;
        /** Writing: the part's bytes are {@code part[0, partLength)}. Reading: the array read into. */
        byte[] part = new byte[0];
        int partLength;
        private BytesStore<?, byte[]> wrapped;
        private byte[] wrappedArray;

        @Override
        public void writeMarshallable(WireOut w) {
            w.write("seq").int64(seq).write("vendor").int32(vendor).write("layout").int32(layout).write("atNs").int64(atNs)
                    .write("length").int32(length).write("offset").int32(offset).write("part").int32(partLength).write("crc").int32(crc);
            if (wrapped == null || wrappedArray != part) {
                wrapped = BytesStore.wrap(part);
                wrappedArray = part;
            }
            w.write("bytes").bytes(wrapped.subBytes(0, partLength));
            w.write("check").int64(~seq);
        }

        /** Reading: where the payload goes; null skips it (a scan). */
        Bytes<?> payload;

        @Override
        public void readMarshallable(WireIn w) {
            readHeader(w);
            if (payload != null) {
                payload.clear();
                w.read("bytes").bytes(payload);
            }
            check(w, seq);
        }

        /** Reads every field but the bytes (a scan needs no payload). */
        void readHeader(WireIn w) {
            seq = w.read("seq").int64();
            vendor = w.read("vendor").int32();
            layout = w.read("layout").int32();
            atNs = w.read("atNs").int64();
            length = w.read("length").int32();
            offset = w.read("offset").int32();
            partLength = w.read("part").int32();
            crc = w.read("crc").int32();
        }
    }

    /** Closes a session: its end time and what it journaled. */
    /** A clock anchor ({@link org.flagos.trace.model.ClockAnchor}): the session's stop anchor. */
    static final class Anchor implements WriteMarshallable, ReadMarshallable {
        long seq;
        String at;
        long realtimeNs;
        long monotonicNs;
        long traceNs;
        long boundNs;

        @Override
        public void writeMarshallable(WireOut w) {
            w.write("seq").int64(seq).write("at").text(at).write("realtimeNs").int64(realtimeNs)
                    .write("monotonicNs").int64(monotonicNs).write("traceNs").int64(traceNs).write("boundNs").int64(boundNs);
            w.write("check").int64(~seq);
        }

        @Override
        public void readMarshallable(WireIn w) {
            seq = w.read("seq").int64();
            at = w.read("at").text();
            realtimeNs = w.read("realtimeNs").int64();
            monotonicNs = w.read("monotonicNs").int64();
            traceNs = w.read("traceNs").int64();
            boundNs = w.read("boundNs").int64();
            check(w, seq);
        }
    }

    static final class Stop implements WriteMarshallable, ReadMarshallable {
        long seq;
        long endNs = JournalSchema.NO_TIME;
        long buffers;
        long ops;

        @Override
        public void writeMarshallable(WireOut w) {
            w.write("seq").int64(seq).write("endNs").int64(endNs).write("buffers").int64(buffers).write("ops").int64(ops);
            w.write("check").int64(~seq);
        }

        @Override
        public void readMarshallable(WireIn w) {
            seq = w.read("seq").int64();
            endNs = w.read("endNs").int64();
            buffers = w.read("buffers").int64();
            ops = w.read("ops").int64();
            check(w, seq);
        }
    }

    /**
     * The last field of every document is {@code check = ~seq}: a document cut short inside (a
     * truncated file reads zeros past its end) or with a garbled tail fails it.
     */
    static void check(WireIn w, long seq) {
        long check = w.read("check").int64();
        if (check != ~seq) {
            throw new Damage("document " + seq + " fails its check field (cut short or corrupted)");
        }
    }

    /** A document that is not what the schema says, described in words for the reader's one line. */
    static final class Damage extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Damage(String message) {
            super(message, null, false, false);
        }
    }

    private JournalDocuments() {
    }
}
