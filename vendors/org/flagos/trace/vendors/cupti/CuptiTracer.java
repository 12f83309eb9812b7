package org.flagos.trace.vendors.cupti;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.bytedeco.cuda.cudart.CUctx_st;
import org.bytedeco.cuda.cudart.cudaDeviceProp;
import org.bytedeco.cuda.cupti.CUpti_BuffersCallbackCompleteFunc;
import org.bytedeco.cuda.cupti.CUpti_BuffersCallbackRequestFunc;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.cuda.global.cupti;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.LongPointer;
import org.bytedeco.javacpp.PointerPointer;
import org.bytedeco.javacpp.SizeTPointer;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.BufferTap;
import org.flagos.trace.model.CallGate;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.DeviceTracer;
import org.flagos.trace.model.Diagnostics;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.vendors.family.LiveKernelNames;
import org.flagos.trace.vendors.family.CompletedBuffers;

/**
 * NVIDIA's tracer: CUPTI's activity API through JavaCPP.
 *
 * <p>The buffer callbacks are registered when this class initializes: CUPTI delivers buffers only
 * if registration precedes the process's first CUDA context (register later and it never calls
 * back). Initialize it before the program's first CUDA call ({@code Profiler.init()}); a context
 * that already exists then is detected and warned about. Activity kinds are armed only while a
 * session runs: RUNTIME instruments every API call's entry and exit (armed from import it cost a
 * launch-bound loop 22% in the seed's measurement), and on the H200 the kernel/memcpy/memset
 * kinds armed from initialization cost a launch-bound loop 82% (see {@code DEVICE_KINDS_AT_INIT}).
 */
public final class CuptiTracer implements DeviceTracer {
    static final int DUMP_VENDOR = 1;
    private static final String COMPONENT = "cupti";
    /**
     * DRIVER records are opt-in ({@code -Dflagtrace.cupti.driver=true}), as in kineto: measured on
     * the H200, the parity workload's cuBLAS and cudart made 1,505 driver calls of their own beside
     * 492 runtime calls, 1,125 of them outside any op, drowning the runtime rows torch shows.
     */
    private static final boolean ARM_DRIVER = Boolean.getBoolean("flagtrace.cupti.driver");
    /**
     * Kernel, memcpy and memset kinds are armed per session by default, like the rest. Measured on
     * the H200 (docs/benchmarks.md, 3 forks x 8 s): a 4-byte cudaMemsetAsync loop ran at 1.520 µs per
     * launch plain, 1.578 µs with only the callbacks registered, and 2.763 µs (+82%) with these kinds
     * armed from initialization: CUPTI records every launch whether a session wants it or not.
     * {@code -Dflagtrace.cupti.deviceKindsAtInit=true} restores arming at initialization.
     */
    private static final boolean DEVICE_KINDS_AT_INIT = Boolean.getBoolean("flagtrace.cupti.deviceKindsAtInit");
    /**
     * CUPTI stays attached between sessions by default: detaching ({@code cuptiFinalize}) crashed
     * the process. Measured on the H200 (TeardownStress, 8 threads launching throughout): with
     * finalize at stop, even called from inside a runtime API exit callback as NVIDIA recommends,
     * a worker thread died in libcupti inside {@code cudaMemsetAsync} within the first sessions
     * (SIGSEGV); attached, 200 sessions ran clean. The price: after a session launches stay about
     * 0.6 µs slower (SessionResidueProbe: 1.2-1.5 µs before, 2.0-2.2 after).
     * {@code -Dflagtrace.cupti.finalizeAtStop=true} detaches anyway, for programs that make no CUDA
     * call on another thread while a session stops.
     */
    private static final boolean FINALIZE_AT_STOP =
            Boolean.getBoolean("flagtrace.cupti.finalizeAtStop");
    /**
     * CUPTI hands over a buffer when it is full (2 MiB, ~22,000 records) unless told to flush
     * periodically ({@code -Dflagtrace.cupti.flushPeriodMs=N}). Off by default: measured on the H200
     * (2026-12-01, 100,000-op sessions), a 10 ms period did not shorten the close (tracer stop
     * 63-75 ms, close to trace 0.12-0.22 s, against 0.14-0.18 s without), because what remains at
     * close is the ring's backlog, not CUPTI's buffer; and the launch loop's session cost rose from
     * +1.26..+1.70 to +1.51..+1.74 µs (intervals overlap).
     */
    private static final int FLUSH_PERIOD_MS = Integer.getInteger("flagtrace.cupti.flushPeriodMs", 0);
    /** How long stop waits for the runtime API exit callback that detaches CUPTI. */
    private static final long DETACH_TIMEOUT_MS = 5_000;
    private static final int[] DEVICE_KINDS = {CuptiActivityKind.CONCURRENT_KERNEL, CuptiActivityKind.MEMCPY, CuptiActivityKind.MEMSET};

    /** Created with the class: the Java equivalent of the seed's load-time static. */
    private static final CuptiTracer INSTANCE = new CuptiTracer();

    private final String unavailable;
    private final CuptiBufferPool pool;
    private final BufferRequested requested;
    private final BufferCompleted completed;
    private final boolean runtimeArmedAtInit;
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong buffersDelivered = new AtomicLong();
    private final AtomicLong buffersAfterStop = new AtomicLong();
    /** Completion callbacks decode only while open; stop shuts it and waits for those inside. */
    private final CompletedBuffers callbacks = new CompletedBuffers("a CUPTI buffer");
    /** Pushes reach CUPTI only while a session runs. */
    private final CallGate pushes = new CallGate();
    /**
     * Pops always follow their push while CUPTI stays attached (a skipped pop would leave a stale
     * id on the thread's stack, stamped on its later launches); shut only before detaching.
     */
    private final CallGate pops = new CallGate();
    private final ThreadLocal<LongPointer> popped = ThreadLocal.withInitial(() -> new LongPointer(1));
    private final ThreadLocal<LongPointer> timestamp = ThreadLocal.withInitial(() -> new LongPointer(1));
    /** Created at the first detach: its class loads CUPTI's natives, which may be missing. */
    private CuptiDetach detacher;
    private String lastDetachFailure;
    private final long initNanos;
    private volatile Session session;
    private boolean detached;
    private List<DeviceProperties> devices;

    /**
     * One session's destination. CUPTI may run completion callbacks on several threads at once;
     * the decoder's flyweights, the stats and the tap are one session's, so a buffer is decoded
     * holding the session's lock (one lock per buffer of ~90,000 records).
     */
    private static final class Session implements CompletedBuffers.Receiver {
        final RecordSink sink;
        final DecodeStats stats;
        final BufferTap tap;
        final CuptiBufferDecoder decoder;

        Session(RecordSink sink, DecodeStats stats, BufferTap tap, CuptiBufferDecoder decoder) {
            this.sink = sink;
            this.stats = stats;
            this.tap = tap;
            this.decoder = decoder;
        }

        @Override
        public void completed(BytePointer buffer, long validSize) {
            if (validSize <= 0) {
                return;
            }
            ByteBuffer bytes = CompletedBuffers.bytes(buffer, validSize);
            tap.buffer(DUMP_VENDOR, bytes);
            decoder.decode(bytes, sink, stats);
        }

        @Override
        public DecodeStats stats() {
            return stats;
        }
    }

    /** The process's CUPTI tracer, initialized (callbacks registered, device kinds armed) on first use. */
    public static CuptiTracer instance() {
        return INSTANCE;
    }

    private CuptiTracer() {
        long t0 = System.nanoTime();
        String reason = null;
        CuptiBufferPool buffers = null;
        BufferRequested onRequest = null;
        BufferCompleted onComplete = null;
        boolean armRuntime = Boolean.getBoolean("flagtrace.cupti.armRuntimeAtInit");
        try {
            reason = load();
            if (reason == null) {
                warnIfContextExists();
                buffers = new CuptiBufferPool();
                onRequest = new BufferRequested();
                onComplete = new BufferCompleted();
                check(cupti.cuptiActivityRegisterCallbacks(onRequest, onComplete), "cuptiActivityRegisterCallbacks");
                if (DEVICE_KINDS_AT_INIT) {
                    for (int kind : DEVICE_KINDS) {
                        check(cupti.cuptiActivityEnable(kind), "cuptiActivityEnable(" + kind + ")");
                    }
                }
                if (armRuntime) {
                    check(cupti.cuptiActivityEnable(CuptiActivityKind.RUNTIME), "cuptiActivityEnable(RUNTIME)");
                }
            }
        } catch (Throwable e) { // a missing or broken library must never take the JVM down
            reason = "CUPTI could not be initialized: " + e;
        }
        this.unavailable = reason;
        this.pool = buffers;
        this.requested = onRequest;
        this.completed = onComplete;
        this.runtimeArmedAtInit = armRuntime && reason == null;
        this.initNanos = System.nanoTime() - t0;
        Diagnostics.trace(COMPONENT, reason == null
                ? "initialized in " + initNanos / 1_000 + " µs: callbacks registered"
                        + (DEVICE_KINDS_AT_INIT ? ", kernel/memcpy/memset armed" : ", device kinds deferred to sessions")
                        + (armRuntime ? ", RUNTIME armed at init" : "")
                : "unavailable: " + reason);
    }

    /** Loads cudart and CUPTI (or the library FLAGOS_TRACER_LIBRARY names); null when loaded. */
    private static String load() {
        String override = System.getenv("FLAGOS_TRACER_LIBRARY");
        try {
            if (override != null && !override.isBlank()) {
                System.load(override);
                Diagnostics.trace(COMPONENT, "FLAGOS_TRACER_LIBRARY: loaded " + override);
            }
            Loader.load(cudart.class);
            Loader.load(cupti.class);
        } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
            if (override != null && !override.isBlank()) {
                return "cannot load FLAGOS_TRACER_LIBRARY=" + override + " (" + firstLine(e.getMessage()) + ")";
            }
            return "no NVIDIA driver (libcuda.so.1) or CUDA 13 runtime with CUPTI could be loaded ("
                    + firstLine(e.getMessage()) + ")";
        }
        int[] version = new int[1];
        int status = cupti.cuptiGetVersion(version);
        if (status != 0) {
            return "cuptiGetVersion failed (" + status + ")";
        }
        if (version[0] / 10000 != CuptiActivityKind.API_VERSION / 10000) {
            Diagnostics.warn(COMPONENT, "CUPTI API version " + version[0] + " but the record layouts are CUPTI "
                    + CuptiActivityKind.API_VERSION + "'s; refusing to decode records whose layout may differ");
            return "CUPTI API version " + version[0] + " is not supported (layouts are for " + CuptiActivityKind.API_VERSION + ")";
        }
        if (version[0] != CuptiActivityKind.API_VERSION) {
            Diagnostics.warn(COMPONENT, "CUPTI API version " + version[0] + ", record layouts from " + CuptiActivityKind.API_VERSION
                    + "; decoding with them");
        }
        Diagnostics.trace(COMPONENT, "CUPTI API version " + version[0]);
        return null;
    }

    private static void warnIfContextExists() {
        CUctx_st context = new CUctx_st();
        int status = cudart.cuCtxGetCurrent(context);
        if (status == 0 && !context.isNull()) {
            Diagnostics.warn(COMPONENT, "a CUDA context already exists: CUPTI will deliver no activity buffers. "
                    + "Call Profiler.init() before the program's first CUDA call.");
        }
    }

    private static void check(int status, String call) {
        if (status != 0) {
            BytePointer text = new BytePointer((BytePointer) null);
            cupti.cuptiGetResultString(status, text);
            throw new IllegalStateException(call + " failed: " + (text.isNull() ? status : text.getString()));
        }
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "no detail";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    @Override
    public String name() {
        return "cupti";
    }

    @Override
    public boolean available() {
        return unavailable == null;
    }

    @Override
    public String unavailableReason() {
        return unavailable == null ? "" : unavailable;
    }

    @Override
    public ApiNames apiNames() {
        return CuptiApiNames.INSTANCE;
    }

    /** Nanoseconds the class initialization took: loading, registering, arming. */
    public long initNanos() {
        return initNanos;
    }

    @Override
    public synchronized void start(RecordSink sink, NameTable names, DecodeStats stats, BufferTap tap) {
        if (!available()) {
            return;
        }
        dropped.set(0);
        if (detached) {
            check(cupti.cuptiActivityRegisterCallbacks(requested, completed), "cuptiActivityRegisterCallbacks (after detach)");
            detached = false;
        }
        CuptiBufferDecoder decoder = new CuptiBufferDecoder(new LiveKernelNames(tap), names, deviceProperties());
        session = new Session(sink, stats, tap, decoder);
        callbacks.open();
        pushes.open();
        pops.open();
        if (!DEVICE_KINDS_AT_INIT) {
            for (int kind : DEVICE_KINDS) {
                check(cupti.cuptiActivityEnable(kind), "cuptiActivityEnable(" + kind + ")");
            }
        }
        if (!runtimeArmedAtInit) {
            check(cupti.cuptiActivityEnable(CuptiActivityKind.RUNTIME), "cuptiActivityEnable(RUNTIME)");
        }
        if (ARM_DRIVER) {
            check(cupti.cuptiActivityEnable(CuptiActivityKind.DRIVER), "cuptiActivityEnable(DRIVER)");
        }
        check(cupti.cuptiActivityEnable(CuptiActivityKind.EXTERNAL_CORRELATION), "cuptiActivityEnable(EXTERNAL_CORRELATION)");
        if (FLUSH_PERIOD_MS > 0) {
            check(cupti.cuptiActivityFlushPeriod(FLUSH_PERIOD_MS), "cuptiActivityFlushPeriod(" + FLUSH_PERIOD_MS + ")");
        }
        Diagnostics.trace(COMPONENT, "session armed RUNTIME, " + (ARM_DRIVER ? "DRIVER, " : "") + "EXTERNAL_CORRELATION");
    }

    @Override
    public synchronized void stop() {
        Session s = session;
        if (!available() || s == null) {
            return;
        }
        pushes.closeAndDrain();
        if (!runtimeArmedAtInit) {
            check(cupti.cuptiActivityDisable(CuptiActivityKind.RUNTIME), "cuptiActivityDisable(RUNTIME)");
        }
        if (ARM_DRIVER) {
            check(cupti.cuptiActivityDisable(CuptiActivityKind.DRIVER), "cuptiActivityDisable(DRIVER)");
        }
        check(cupti.cuptiActivityDisable(CuptiActivityKind.EXTERNAL_CORRELATION), "cuptiActivityDisable(EXTERNAL_CORRELATION)");
        if (!DEVICE_KINDS_AT_INIT) {
            for (int kind : DEVICE_KINDS) {
                check(cupti.cuptiActivityDisable(kind), "cuptiActivityDisable(" + kind + ")");
            }
        }
        if (FLUSH_PERIOD_MS > 0) {
            check(cupti.cuptiActivityFlushPeriod(0), "cuptiActivityFlushPeriod(0)");
        }
        // Blocking: CUPTI hands every buffer holding records to the completion callback.
        check(cupti.cuptiActivityFlushAll(1 /* CUPTI_ACTIVITY_FLAG_FLUSH_FORCED */), "cuptiActivityFlushAll");
        // Callbacks inside the gate finish decoding; any later one finds it shut and is counted.
        callbacks.closeAndDrain();
        session = null;
        if (pool.grown() > 0) { // not a loss: the pool allocated more, CUPTI recorded on
            Diagnostics.trace(COMPONENT, "CUPTI requested more buffers than preallocated: " + pool.grown() + " allocated so far");
        }
        if (FINALIZE_AT_STOP && !DEVICE_KINDS_AT_INIT && !runtimeArmedAtInit) {
            if (detacher == null) {
                detacher = new CuptiDetach();
            }
            pops.closeAndDrain(); // no thread of ours may be inside CUPTI when it is detached
            String failure = detacher.detach(DETACH_TIMEOUT_MS);
            detached = failure == null;
            if (!detached) {
                pops.open(); // still attached: pops must reach the stacks again
            }
            if (failure != null && !failure.equals(lastDetachFailure)) {
                Diagnostics.warn(COMPONENT, "CUPTI stays attached after the session (" + failure
                        + "): launches may stay slower until the process ends");
            }
            lastDetachFailure = failure;
        }
        Diagnostics.trace(COMPONENT, (detached ? "detached; " : "") + "session stopped; buffers delivered so far " + buffersDelivered.get()
                + ", outside sessions " + callbacks.outsideSession() + " (after a stop " + buffersAfterStop.get()
                + "), dropped by CUPTI " + dropped.get());
    }

    /** Buffers with records that CUPTI delivered after a session had stopped: their records reached no trace. */
    public long buffersAfterStop() {
        return buffersAfterStop.get();
    }

    @Override
    public boolean pushCorrelation(ExternalId id) {
        if (!pushes.enter()) {
            return false; // no session, or it is stopping
        }
        try {
            return cupti.cuptiActivityPushExternalCorrelationId(CuptiExternalCorrelationDecoder.CUSTOM0, id.value()) == 0;
        } finally {
            pushes.exit();
        }
    }

    @Override
    public void popCorrelation() {
        if (!pops.enter()) {
            return; // CUPTI was detached since the push, and its stacks went with it
        }
        try {
            // The out-parameter must be a real address: CANN's MSPTI ignored a null one and never
            // unwound its stack (the seed's issue #425); pass one everywhere.
            cupti.cuptiActivityPopExternalCorrelationId(CuptiExternalCorrelationDecoder.CUSTOM0, popped.get());
        } finally {
            pops.exit();
        }
    }

    @Override
    public int deviceCount() {
        if (!available()) {
            return 0;
        }
        int[] count = new int[1];
        return cudart.cudaGetDeviceCount(count) == 0 ? count[0] : 0;
    }

    @Override
    public synchronized List<DeviceProperties> deviceProperties() {
        if (devices == null) {
            List<DeviceProperties> list = new ArrayList<>();
            for (int d = 0; d < deviceCount(); d++) {
                cudaDeviceProp p = new cudaDeviceProp();
                if (cudart.cudaGetDeviceProperties(p, d) == 0) {
                    try {
                        list.add(new DeviceProperties(d, p.name().getString(), p.totalGlobalMem(), p.major(), p.minor(),
                            p.maxThreadsPerBlock(), p.maxThreadsPerMultiProcessor(), p.regsPerBlock(), p.warpSize(),
                            p.sharedMemPerBlock(), p.multiProcessorCount(), p.regsPerMultiprocessor(),
                            p.sharedMemPerBlockOptin(), p.sharedMemPerMultiprocessor()));
                    } catch (IllegalArgumentException e) { // a device no occupancy formula can describe
                        Diagnostics.warn(COMPONENT, "device " + d + " left out of deviceProperties: " + e.getMessage());
                    }
                }
                p.close();
            }
            devices = List.copyOf(list);
        }
        return devices;
    }

    @Override
    public long droppedByVendor() {
        return dropped.get();
    }

    @Override
    public long timestampNs() {
        if (!available()) {
            return org.flagos.trace.model.RealtimeClock.nowNs();
        }
        LongPointer now = timestamp.get(); // native memory: no array copy across JNI, a tighter round trip
        cupti.cuptiGetTimestamp(now);
        return now.get(0);
    }

    /** Hands CUPTI a pooled buffer. */
    private final class BufferRequested extends CUpti_BuffersCallbackRequestFunc {
        @Override
        @SuppressWarnings("rawtypes") // the JavaCPP callback signature is raw
        public void call(PointerPointer buffer, SizeTPointer size, SizeTPointer maxNumRecords) {
            BytePointer b = pool.take();
            buffer.put(0, b);
            size.put(0, b == null ? 0 : CuptiBufferPool.BUFFER_BYTES);
            maxNumRecords.put(0, 0);
        }
    }

    /** Decodes a completed buffer into the session's ring, then returns it to the pool. */
    private final class BufferCompleted extends CUpti_BuffersCallbackCompleteFunc {
        @Override
        public void call(CUctx_st context, int streamId, BytePointer buffer, long size, long validSize) {
            try {
                buffersDelivered.incrementAndGet();
                if (!callbacks.deliver(session, buffer, validSize) && validSize > 0 && (detached || session == null)) {
                    buffersAfterStop.incrementAndGet();
                }
                try (SizeTPointer droppedCount = new SizeTPointer(1)) { // callbacks may run concurrently
                    if (cupti.cuptiActivityGetNumDroppedRecords(context, streamId, droppedCount) == 0) {
                        dropped.addAndGet(droppedCount.get(0));
                    }
                }
            } catch (Throwable e) { // never unwind into CUPTI's native frame
                Diagnostics.warn(COMPONENT, "a completion callback failed: " + e);
            } finally {
                if (buffer != null && !buffer.isNull()) {
                    pool.give(buffer.address());
                }
            }
        }
    }
}
