package org.flagos.trace.vendors.activity;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.LongPointer;
import org.flagos.trace.model.ActivityBufferDecoder;
import org.flagos.trace.model.BufferTap;
import org.flagos.trace.model.CallGate;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.DeviceTracer;
import org.flagos.trace.model.Diagnostics;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordSink;

/**
 * The lifecycle every native activity tracer shares (CUPTI, the CUPTI family, MSPTI, ROCtracer);
 * a vendor's tracer gives only its calls.
 *
 * <ul>
 *   <li>Load: once, the first time the tracer is asked whether it is available ({@link #load()});
 *       a missing library or a version whose records are not understood is one sentence
 *       ({@link #unavailableReason()}), and CPU profiling continues.</li>
 *   <li>Start: {@link #newSession} (before completions reach it; may refuse), completions opened,
 *       {@link #arm} (may refuse: the session is then withdrawn), then the push gate opened.</li>
 *   <li>Each completed buffer: under the session's lock (the vendor may complete on several
 *       threads), saved into the tap and decoded ({@link Session}).</li>
 *   <li>Push and pop of the External id: gated, so no push reaches a library whose session is
 *       stopping; refusals counted. This is on the host's hot path (once per op): no allocation,
 *       no lock, no capturing lambda.</li>
 *   <li>Stop: shut the push gate, {@link #disarm} (the vendor's final flush), drain the
 *       completions, withdraw the session, {@link #afterDrain}.</li>
 * </ul>
 *
 * @param <S> the vendor's session type
 */
public abstract class ActivityTracer<S extends ActivityTracer.Session> implements DeviceTracer {
    /** The environment variable that points a tracer at a non-default library. */
    public static final String LIBRARY_ENV = VendorLibrary.LIBRARY_ENV;
    /** The system property that does the same, for a JVM that cannot set its environment. */
    public static final String LIBRARY_PROPERTY = VendorLibrary.LIBRARY_PROPERTY;
    /** Bytes per activity buffer handed to a vendor ({@code -Dflagtrace.vendor.bufferMiB}, 2 by default). */
    protected static final int BUFFER_BYTES = Integer.getInteger("flagtrace.vendor.bufferMiB", 2) << 20;

    private final String name;
    private final CompletedBuffers callbacks;
    private final CallGate pushes = new CallGate();
    /** Null when pops always reach the library; else shut only while the library detaches (CUPTI). */
    private final CallGate pops;
    private final ThreadLocal<LongPointer> popped = ThreadLocal.withInitial(() -> new LongPointer(1));
    private final AtomicLong pushFailures = new AtomicLong();
    private final AtomicLong popFailures = new AtomicLong();
    private final AtomicLong activationFailures = new AtomicLong();
    /** Null until loaded; empty when available, else why not. */
    private volatile String unavailable;
    private volatile S session;

    /**
     * @param name       short vendor name ({@code mspti}), as {@link #name()} and in messages
     * @param buffers    what one buffer is called in a failure ({@code "an MSPTI buffer"})
     * @param gatedPops  true when pops must be kept out of a library while it detaches
     */
    protected ActivityTracer(String name, String buffers, boolean gatedPops) {
        this.name = name;
        this.callbacks = new CompletedBuffers(buffers);
        this.pops = gatedPops ? new CallGate() : null;
    }

    /**
     * One session's destination. A completed buffer is saved into the tap and decoded; a vendor's
     * session adds what it does before a buffer ({@link #beforeBuffer}) and before decoding it
     * ({@link #beforeDecode}).
     */
    public static class Session implements CompletedBuffers.Receiver {
        private final int dumpVendor;
        private final ActivityBufferDecoder decoder;
        private final RecordSink sink;
        private final DecodeStats stats;
        private final BufferTap tap;
        /** The saved copy of the buffer being decoded, when a tap saves buffers; null until the first. */
        private ByteBuffer copy;

        /**
         * @param dumpVendor the {@code .fltrbuf} vendor id the buffers are saved under
         */
        public Session(int dumpVendor, ActivityBufferDecoder decoder, RecordSink sink, DecodeStats stats, BufferTap tap) {
            this.dumpVendor = dumpVendor;
            this.decoder = decoder;
            this.sink = sink;
            this.stats = stats;
            this.tap = tap;
        }

        @Override
        public final void completed(BytePointer buffer, long validSize) {
            beforeBuffer();
            if (validSize <= 0) {
                return;
            }
            ByteBuffer bytes = CompletedBuffers.bytes(buffer, validSize);
            if (tap != BufferTap.NONE) {
                // One read of the vendor's memory for both: a record still being written as the
                // buffer was handed over must be decoded as it was saved, or a replay of the saved
                // buffers would disagree with the live trace (seen on the H200 under contention).
                bytes = snapshot(bytes);
                tap.buffer(dumpVendor, bytes);
            }
            beforeDecode();
            decoder.decode(bytes, sink, stats);
        }

        /** {@code bytes} copied into this session's own buffer (grown as needed, reused; under its lock). */
        private ByteBuffer snapshot(ByteBuffer bytes) {
            int length = bytes.remaining();
            if (copy == null || copy.capacity() < length) {
                copy = ByteBuffer.allocateDirect(Math.max(length, copy == null ? 0 : copy.capacity() * 2)).order(ByteOrder.LITTLE_ENDIAN);
            }
            copy.clear();
            copy.put(bytes.duplicate()).flip();
            return copy;
        }

        /** Called for every completed buffer, empty ones included, before anything else. */
        protected void beforeBuffer() {
        }

        /** Called after a buffer with records was saved, before it is decoded. */
        protected void beforeDecode() {
        }

        /** Where records go. */
        public final RecordSink sink() {
            return sink;
        }

        /** Where records are counted. */
        @Override
        public final DecodeStats stats() {
            return stats;
        }

        /** Where raw buffers, names and the clock are saved. */
        public final BufferTap tap() {
            return tap;
        }
    }

    /**
     * Loads the vendor library: null when loaded, else one line saying why not (a missing library,
     * a version whose record layouts are not known). Called once.
     */
    protected abstract String load();

    /**
     * Prepares one session before completions reach it (its decoder, anything the vendor must do
     * while no buffer can arrive); null when the vendor refused (the tracer reported why).
     */
    protected abstract S newSession(RecordSink sink, NameTable names, DecodeStats stats, BufferTap tap);

    /** Arms the vendor's kinds with completions open; false when it refused (the tracer reported why). */
    protected abstract boolean arm(S session);

    /** Disarms and force-flushes: when it returns, the vendor has completed every buffer it will. */
    protected abstract void disarm(S session);

    /**
     * Asks the vendor, without disarming, for every buffer whose records are complete; true when the
     * vendor's completion callbacks for them have returned by then, with every binding published
     * (under the session's lock). False by default: the vendor cannot flush mid-session.
     */
    protected boolean flushCompleted(S session) {
        return false;
    }

    /** After the last completion has returned and the session is withdrawn. Nothing by default. */
    protected void afterDrain(S session) {
    }

    /** Pushes {@code externalId} on the calling thread's stack; the vendor's status, 0 for success. */
    protected abstract int push(long externalId);

    /** Pops the calling thread's stack into {@code last} (a real out-parameter); the vendor's status. */
    protected abstract int pop(LongPointer last);

    /**
     * Calls {@code int64_t symbol(int64_t)} in the loaded library: how a workload drives the
     * library's own entry points (the fake libraries' scripted launches). -1 when the symbol is
     * absent; unsupported by a tracer that reaches its library other than through flagtrace's shim.
     */
    public final long invoke(String symbol, long argument) {
        if (!available()) {
            throw new IllegalStateException(unavailableReason());
        }
        return invokeSymbol(symbol, argument);
    }

    /** The vendor side of {@link #invoke}, on a loaded library. */
    protected long invokeSymbol(String symbol, long argument) {
        throw new UnsupportedOperationException(name + " has no entry points to invoke by name");
    }

    /** What a trace line at stop adds after the shared counts (starts with ", "); empty by default. */
    protected String stopDetail() {
        return "";
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final boolean available() {
        return loaded().isEmpty();
    }

    @Override
    public final String unavailableReason() {
        return loaded();
    }

    private String loaded() {
        String reason = unavailable;
        return reason != null ? reason : loadOnce();
    }

    private synchronized String loadOnce() {
        if (unavailable == null) {
            String reason = load();
            unavailable = reason == null ? "" : reason;
        }
        return unavailable;
    }

    @Override
    public final synchronized void start(RecordSink sink, NameTable names, DecodeStats stats, BufferTap tap) {
        if (!available() || session != null) {
            return;
        }
        S s = newSession(sink, names, stats, tap);
        if (s == null) {
            return;
        }
        session = s;
        callbacks.open();
        if (!arm(s)) {
            callbacks.closeAndDrain();
            session = null;
            return;
        }
        if (pops != null) {
            pops.open();
        }
        pushes.open();
    }

    @Override
    public final synchronized void stop() {
        S s = session;
        if (!available() || s == null) {
            return;
        }
        long t0 = System.nanoTime();
        long buffers0 = callbacks.delivered();
        long bytes0 = callbacks.deliveredBytes();
        long receiving0 = callbacks.receivingNs();
        pushes.closeAndDrain();
        long t1 = System.nanoTime();
        disarm(s);
        long t2 = System.nanoTime();
        callbacks.closeAndDrain(); // completions inside finish decoding; a later one finds it shut and is counted
        long t3 = System.nanoTime();
        session = null;
        afterDrain(s);
        long t4 = System.nanoTime();
        if (Diagnostics.enabled()) { // built only when printed: on the close's path, a first concatenation costs milliseconds
            Diagnostics.trace(name, "session stopped in " + (t4 - t0) / 1_000 + " µs (pushes drained " + (t1 - t0) / 1_000
                    + ", disarmed and flushed " + (t2 - t1) / 1_000 + ", completions drained " + (t3 - t2) / 1_000
                    + ", after drain " + (t4 - t3) / 1_000 + "; " + (callbacks.delivered() - buffers0) + " buffers, "
                    + (callbacks.deliveredBytes() - bytes0) + " bytes received in " + (callbacks.receivingNs() - receiving0) / 1_000
                    + " µs of it); buffers outside sessions " + callbacks.outsideSession()
                    + ", failed pushes " + pushFailures.get() + ", failed pops " + popFailures.get() + stopDetail());
        }
    }

    /**
     * {@link #flushCompleted} on the running session, then waits out any completion still inside it on
     * another of the vendor's threads (completions run under the session's lock). Serialized with
     * {@link #stop()}: false once the session is gone.
     */
    @Override
    public final synchronized boolean flush() {
        S s = session;
        if (!available() || s == null || !flushCompleted(s)) {
            return false;
        }
        synchronized (s) {
            return session == s;
        }
    }

    @Override
    public final long buffersDelivered() {
        return callbacks.delivered();
    }

    @Override
    public final boolean pushCorrelation(ExternalId id) {
        if (!pushes.enter()) {
            return false; // no session, or it is stopping
        }
        try {
            if (push(id.value()) == 0) {
                return true;
            }
            pushFailures.incrementAndGet();
            return false;
        } finally {
            pushes.exit();
        }
    }

    @Override
    public final void popCorrelation() {
        CallGate gate = pops;
        if (gate == null) {
            popAndCount();
        } else if (gate.enter()) {
            try {
                popAndCount();
            } finally {
                gate.exit();
            }
        } // else: the library detached since the push, and its stacks went with it
    }

    private void popAndCount() {
        // A real out-parameter: CANN's MSPTI ignored a null one and never unwound (the seed's #425).
        if (pop(popped.get()) != 0) {
            popFailures.incrementAndGet();
        }
    }

    /** Keeps pops out of the library until {@link #openPops()} (before it detaches); needs gated pops. */
    protected final void closePops() {
        pops.closeAndDrain();
    }

    /** Lets pops reach the library again. */
    protected final void openPops() {
        pops.open();
    }

    /** The session running now, or null. */
    protected final S session() {
        return session;
    }

    /**
     * Hands a completed buffer to the running session (see {@link CompletedBuffers#deliver}); false
     * when completions are shut. For a vendor callback that does more around it.
     */
    protected final boolean deliver(BytePointer buffer, long validSize) {
        return callbacks.deliver(session, buffer, validSize);
    }

    /** {@link #deliver}, from the vendor's native frame: nothing may unwind into it. */
    protected final void deliverFromNative(BytePointer buffer, long validSize) {
        try {
            callbacks.deliver(session, buffer, validSize);
        } catch (Throwable e) {
            Diagnostics.warn(name, "a completion callback failed: " + e);
        }
    }

    /** Buffers holding records that completed while no session ran. */
    protected final long buffersOutsideSession() {
        return callbacks.outsideSession();
    }

    /** Reports that a session started without device capture, and counts it. */
    protected final void activationFailed(String why) {
        activationFailures.incrementAndGet();
        System.err.println("flagtrace: " + name + " activity capture could not start (" + why
                + "); CPU-side profiling continues");
    }

    /** Sessions that started without device capture because the vendor refused activation. */
    public final long activationFailures() {
        return activationFailures.get();
    }

    /** Pushes the vendor refused since the tracer was built. */
    public final long pushFailures() {
        return pushFailures.get();
    }

    /** Pops the vendor refused since the tracer was built. */
    public final long popFailures() {
        return popFailures.get();
    }

    /** Warns when {@code status} is not success. */
    protected final void check(int status, String call) {
        if (status != 0) {
            Diagnostics.warn(name, call + " returned " + status);
        }
    }

    /** One device when available: the shim libraries enumerate none. */
    @Override
    public int deviceCount() {
        return available() ? 1 : 0;
    }

    /** None: no CUDA occupancy formula applies to these vendors, so those fields are left out. */
    @Override
    public List<DeviceProperties> deviceProperties() {
        return List.of();
    }

    /** None by default: most vendors keep no count of records they dropped. */
    @Override
    public long droppedByVendor() {
        return 0;
    }
}
