package org.flagos.trace.vendors.cupti;

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
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.Diagnostics;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.NativeLoadFailure;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.vendors.activity.ActivityTracer;
import org.flagos.trace.vendors.family.LiveKernelNames;


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
public final class CuptiTracer extends ActivityTracer<ActivityTracer.Session> {
    static final int DUMP_VENDOR = 1;
    private static final String COMPONENT = "cupti";
    /**
     * DRIVER records: the launches only by default ({@link CuptiDriverLaunches}), as kineto and {@code flagtrace run}
     * arm them; {@code -Dflagtrace.cupti.driver=all} (or {@code true}) records every driver call, {@code none} (or
     * {@code false}) none. Every call is too many: measured on the H200, the parity workload's cuBLAS and cudart made
     * 1,505 driver calls of their own beside 492 runtime calls, 1,125 of them outside any op, drowning the runtime
     * rows torch shows.
     */
    private static final String DRIVER_CALLS = driverCalls(System.getProperty("flagtrace.cupti.driver", "launches"));
    private static final boolean ARM_DRIVER = !DRIVER_CALLS.equals("none");
    /**
     * SYNCHRONIZATION (torch's {@code cuda_sync}) and OVERHEAD (CUPTI's own time, torch's
     * {@code overhead}) are armed per session with the rest, as kineto arms them; {@code
     * -Dflagtrace.cupti.syncAndOverhead=false} leaves them off. Neither adds a record per launch: a
     * synchronization record comes per synchronizing call, an overhead record per buffer CUPTI asks
     * for or flushes (and per lazily loaded function).
     */
    private static final boolean ARM_SYNC_AND_OVERHEAD =
            !"false".equals(System.getProperty("flagtrace.cupti.syncAndOverhead"));
    /**
     * MEMORY2 records (device-memory allocations and releases, torch's {@code [memory]} events) are
     * armed per session unless {@code -Dflagtrace.cupti.memory=false}: CUPTI writes one only when
     * memory is allocated or released, never on a launch.
     */
    private static final boolean ARM_MEMORY = !"false".equals(System.getProperty("flagtrace.cupti.memory"));
    /**
     * MARKER records (NVTX ranges and marks, drawn as torch's {@code user_annotation}) are armed per
     * session unless {@code -Dflagtrace.cupti.nvtx=false}: CUPTI writes one per NVTX call, and only
     * NVTX calls that reach it as NVTX's injection library ({@code NVTX_INJECTION64_PATH}, docs/vendors/cupti.md).
     * MARKER_DATA (colour, category, payload) is not armed: the trace has no field for it.
     */
    private static final boolean ARM_NVTX = !"false".equals(System.getProperty("flagtrace.cupti.nvtx"));
    /**
     * UNIFIED_MEMORY_COUNTER records (managed-memory migrations, drawn on each device's {@code Unified
     * Memory} row) are armed per session only with {@code -Dflagtrace.cupti.unifiedMemory=true}: armed,
     * every session's stop took about 2 s more on the H200 (tracer stop 2.03-2.06 s against 0.02-0.05 s,
     * 600,020-event sessions, 2026-12-02), in CUPTI's flush, whether or not the program used managed
     * memory. Armed: the HtoD, DtoH and DtoD transfer counters, and with {@code -Dflagtrace.cupti.unifiedMemoryFaults=true}
     * also CPU and GPU page faults (off by default for their cost, as Nsight Systems leaves them). CUPTI
     * writes them only when a program uses managed memory. Counters are configured before the kind is
     * enabled; CUPTI refuses the kind before the CUDA driver is initialized (CUPTI_ERROR_NOT_READY,
     * measured on the H200) and where unified-memory profiling is not supported: a refusal is
     * logged once per reason and the session goes on without the kind.
     */
    private static final boolean ARM_UNIFIED_MEMORY = Boolean.getBoolean("flagtrace.cupti.unifiedMemory");
    private static final boolean UNIFIED_MEMORY_FAULTS = Boolean.getBoolean("flagtrace.cupti.unifiedMemoryFaults");
    /** {@code CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_SINGLE_DEVICE} (deprecated, still required). */
    private static final int UNIFIED_MEMORY_SCOPE_PROCESS_SINGLE_DEVICE = 1;
    /** The counters configured: transfers always (HtoD 1, DtoH 2, DtoD 8), page faults (CPU 3, GPU 4) on request. */
    static int[] unifiedMemoryCounters(boolean faults) {
        return faults ? new int[] {1, 2, 8, 3, 4} : new int[] {1, 2, 8};
    }

    /**
     * MEMCPY2 records (copies between two devices, torch's {@code Memcpy PtoP}) are armed per session
     * unless {@code -Dflagtrace.cupti.peerCopies=false}: CUPTI writes one per peer copy, none per launch
     * (what arming it costs a launch is not measured yet: {@code SETS="NONE MEMCPY2"
     * benchmarks/run-device-residue-kinds.sh}). On one GPU CUPTI accepts the kind (the H200's kinds capture)
     * and reports a peer copy to the same device as an ordinary device-to-device MEMCPY record.
     */
    private static final boolean ARM_PEER_COPIES = !"false".equals(System.getProperty("flagtrace.cupti.peerCopies"));
    /** The kinds beyond the seed's that a session arms and disarms, as the properties above leave them. */
    private static final int[] SESSION_EXTRA_KINDS = java.util.stream.Stream.of(
            ARM_SYNC_AND_OVERHEAD ? java.util.stream.IntStream.of(CuptiActivityKind.SYNCHRONIZATION, CuptiActivityKind.OVERHEAD)
                    : java.util.stream.IntStream.empty(),
            ARM_MEMORY ? java.util.stream.IntStream.of(CuptiActivityKind.MEMORY2) : java.util.stream.IntStream.empty(),
            ARM_NVTX ? java.util.stream.IntStream.of(CuptiActivityKind.MARKER) : java.util.stream.IntStream.empty(),
            ARM_PEER_COPIES ? java.util.stream.IntStream.of(CuptiActivityKind.MEMCPY2) : java.util.stream.IntStream.empty())
            .flatMapToInt(kinds -> kinds).toArray();
    /**
     * Kernel, memcpy and memset kinds are armed per session by default, like the rest. Measured on
     * the H200 (docs/benchmarks.md, 3 forks x 8 s): a 4-byte cudaMemsetAsync loop ran at 1.520 µs per
     * launch plain, 1.578 µs with only the callbacks registered, and 2.763 µs (+82%) with these kinds
     * armed from initialization: CUPTI records every launch whether a session wants it or not.
     * {@code -Dflagtrace.cupti.deviceKindsAtInit=true} restores arming at initialization.
     */
    private static final boolean DEVICE_KINDS_AT_INIT = Boolean.getBoolean("flagtrace.cupti.deviceKindsAtInit");
    /**
     * CUPTI stays attached after a session by default; {@code -Dflagtrace.cupti.finalizeAtStop=true}
     * detaches it ({@code cuptiFinalize}) at every stop, from a native callback at the exit of a runtime
     * API call ({@link CuptiDetach}), so later launches lose CUPTI's cost (kinds merely disabled leave
     * SYNCHRONIZATION's +0.18 µs and about half of RUNTIME's on every launch, raw CUPTI on the H200).
     * It is off because it is not safe while other threads call CUDA: on the H200 (2026-12-05,
     * TeardownStress 40 x 8 pinned to 2 cores beside 2 spinning hogs, 8 pairs of cores, 380 s each)
     * the detaching runs crashed in libcupti on a launching thread (SIGSEGV inside CUPTI's callback
     * dispatch under cudaMemsetAsync, or glibc heap aborts) in 40 of 140 runs, whether the buffer pool
     * lent each buffer once or not, while the runs that kept CUPTI attached had no native failure in
     * 99. (Without hogs, 200 sessions x 8 threads had run clean on 2026-12-02.) Opt in only for a
     * program whose other threads make no CUDA call while a session stops.
     */
    private static final boolean FINALIZE_AT_STOP =
            Boolean.getBoolean("flagtrace.cupti.finalizeAtStop");
    /**
     * CUPTI hands over a buffer when it is full (1 MiB by default, ~11,000 records) unless told to flush
     * periodically ({@code -Dflagtrace.cupti.flushPeriodMs=N}). Off by default: measured on the H200
     * (2026-12-01, 100,000-op sessions), a 10 ms period did not shorten the close (tracer stop
     * 63-75 ms, close to trace 0.12-0.22 s, against 0.14-0.18 s without), because what remains at
     * close is the ring's backlog, not CUPTI's buffer; and the launch loop's session cost rose from
     * +1.26..+1.70 to +1.51..+1.74 µs (intervals overlap).
     */
    private static final int FLUSH_PERIOD_MS = Integer.getInteger("flagtrace.cupti.flushPeriodMs", 0);
    /** The least bytes per record a buffer can average: a 24 B binding, then the 40 B API call it binds. */
    private static final int DENSEST_RECORD_BYTES = (CuptiExternalCorrelationDecoder.SIZE + CuptiApiDecoder.SIZE) / 2;
    /** How long stop waits for the runtime API exit callback that detaches CUPTI. */
    private static final long DETACH_TIMEOUT_MS = 5_000;
    private static final int[] DEVICE_KINDS = {CuptiActivityKind.CONCURRENT_KERNEL, CuptiActivityKind.MEMCPY, CuptiActivityKind.MEMSET};

    /** Created with the class: the Java equivalent of the seed's load-time static. */
    private static final CuptiTracer INSTANCE = new CuptiTracer();

    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong buffersDelivered = new AtomicLong();
    /** How long the last stop's forced flush took (completions inside it included); for the close's breakdown. */
    private volatile long lastFlushNs;
    /**
     * From a stop's disarming to the next session's arming: buffers CUPTI completes then (the forced
     * flush's, and late ones) may still have records written into them by launching threads after
     * the hand-over (on the H200 the dump's copy ended in unwritten records, and zeroing such buffers
     * at once coincided with SIGSEGVs inside CUPTI's launch callbacks): they are set aside for a session.
     */
    private volatile boolean settling;
    private final AtomicLong buffersAfterStop = new AtomicLong();
    private final ThreadLocal<LongPointer> timestamp = ThreadLocal.withInitial(() -> new LongPointer(1));
    private CuptiBufferPool pool;
    private BufferRequested requested;
    private BufferCompleted completed;
    private boolean runtimeArmedAtInit;
    private long initNanos;
    /** Created at the first detach: its class loads CUPTI's natives, which may be missing. */
    private CuptiDetach detacher;
    private String lastDetachFailure;
    private volatile boolean detached;
    private List<DeviceProperties> devices;
    /** True while a session holds UNIFIED_MEMORY_COUNTER enabled. */
    private boolean unifiedMemoryArmed;
    /** The last reason CUPTI gave for refusing unified memory, so that each is logged once. */
    private String lastUnifiedMemoryRefusal;

    /** The process's CUPTI tracer, initialized (callbacks registered, device kinds armed) on first use. */
    public static CuptiTracer instance() {
        return INSTANCE;
    }

    /**
     * Pops are gated: they always follow their push while CUPTI stays attached (a skipped pop would
     * leave a stale id on the thread's stack, stamped on its later launches), and are shut only
     * before detaching.
     */
    private CuptiTracer() {
        super(COMPONENT, "a CUPTI buffer", true);
        available(); // now, with the class: registration must precede the process's first CUDA context
    }

    @Override
    protected String load() {
        long t0 = System.nanoTime();
        String reason;
        boolean armRuntime = Boolean.getBoolean("flagtrace.cupti.armRuntimeAtInit");
        try {
            reason = loadLibraries();
            if (reason == null) {
                warnIfContextExists();
                pool = new CuptiBufferPool();
                requested = new BufferRequested();
                completed = new BufferCompleted();
                require(cupti.cuptiActivityRegisterCallbacks(requested, completed), "cuptiActivityRegisterCallbacks");
                if (DEVICE_KINDS_AT_INIT) {
                    for (int kind : DEVICE_KINDS) {
                        require(cupti.cuptiActivityEnable(kind), "cuptiActivityEnable(" + kind + ")");
                    }
                }
                if (armRuntime) {
                    require(cupti.cuptiActivityEnable(CuptiActivityKind.RUNTIME), "cuptiActivityEnable(RUNTIME)");
                    quietCalls();
                }
                if (FINALIZE_AT_STOP && !DEVICE_KINDS_AT_INIT && !armRuntime) {
                    // Loaded now, not at the first stop: on the H200 the first session's detach took
                    // 25-31 ms against 3-4 ms for later ones, its native library loaded inside the close.
                    detacher = detacher();
                    String notLoaded = detacher.load();
                    if (notLoaded != null) {
                        Diagnostics.trace(COMPONENT, "the detach library did not load at init (" + notLoaded + "); the first stop tries again");
                    }
                }
            }
        } catch (Throwable e) { // a missing or broken library must never take the JVM down
            reason = "CUPTI could not be initialized: " + e;
        }
        runtimeArmedAtInit = armRuntime && reason == null;
        initNanos = System.nanoTime() - t0;
        Diagnostics.trace(COMPONENT, reason == null
                ? "initialized in " + initNanos / 1_000 + " µs: callbacks registered"
                        + (DEVICE_KINDS_AT_INIT ? ", kernel/memcpy/memset armed" : ", device kinds deferred to sessions")
                        + (armRuntime ? ", RUNTIME armed at init" : "")
                        + (ARM_NVTX && System.getenv("NVTX_INJECTION64_PATH") == null
                                ? "; NVTX_INJECTION64_PATH is not set, so NVTX ranges will not reach CUPTI" : "")
                : "unavailable: " + reason);
        return reason;
    }

    /** Loads cudart and CUPTI (or the library FLAGOS_TRACER_LIBRARY names); null when loaded. */
    private static String loadLibraries() {
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
                return "cannot load FLAGOS_TRACER_LIBRARY=" + override + " (" + NativeLoadFailure.describe(e) + ")";
            }
            return "no NVIDIA driver or CUDA 13 runtime with CUPTI could be loaded: " + NativeLoadFailure.describe(e);
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

    /** The records torch leaves out are not written (CuptiUnrecordedCalls); a CUPTI that refuses keeps writing them. */
    /** "launches", "all" or "none" from the property's value; another value is said once and read as "launches". */
    static String driverCalls(String value) {
        return switch (value.strip().toLowerCase(java.util.Locale.ROOT)) {
            case "launches" -> "launches";
            case "all", "true" -> "all";
            case "none", "false" -> "none";
            default -> {
                System.err.println("flagtrace: -Dflagtrace.cupti.driver=" + value + " is not launches, all or none: launches recorded");
                yield "launches";
            }
        };
    }

    private static void armDriver() {
        if (DRIVER_CALLS.equals("all")) {
            require(cupti.cuptiActivityEnable(CuptiActivityKind.DRIVER), "cuptiActivityEnable(DRIVER)");
            return;
        }
        int status = CuptiDriverLaunches.arm();
        if (status != 0) {
            Diagnostics.trace(COMPONENT, "driver launches not recorded (" + (status < 0 ? "no per-call switch in this CUPTI"
                    : "cuptiActivityEnable(DRIVER) returned " + status) + "): kernels launched through the driver carry no op");
        }
    }

    private static void quietCalls() {
        int refused = CuptiUnrecordedCalls.switchOff();
        if (refused > 0) {
            Diagnostics.trace(COMPONENT, "cuptiActivityEnableRuntimeApi refused " + refused + " of "
                    + CuptiUnrecordedCalls.RUNTIME_CBIDS.length + " calls: their records are written");
        }
    }

    private static void require(int status, String call) {
        if (status != 0) {
            BytePointer text = new BytePointer((BytePointer) null);
            cupti.cuptiGetResultString(status, text);
            throw new IllegalStateException(call + " failed: " + (text.isNull() ? status : text.getString()));
        }
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
    protected Session newSession(RecordSink sink, NameTable names, DecodeStats stats, BufferTap tap) {
        dropped.set(0);
        if (detached) {
            require(cupti.cuptiActivityRegisterCallbacks(requested, completed), "cuptiActivityRegisterCallbacks (after detach)");
            detached = false;
        }
        return new Session(DUMP_VENDOR, new CuptiBufferDecoder(new LiveKernelNames(tap), names, deviceProperties()),
                sink, stats, tap);
    }

    @Override
    protected boolean arm(Session s) {
        settling = false;
        if (!DEVICE_KINDS_AT_INIT) {
            for (int kind : DEVICE_KINDS) {
                require(cupti.cuptiActivityEnable(kind), "cuptiActivityEnable(" + kind + ")");
            }
        }
        if (!runtimeArmedAtInit) {
            require(cupti.cuptiActivityEnable(CuptiActivityKind.RUNTIME), "cuptiActivityEnable(RUNTIME)");
            quietCalls();
        }
        if (ARM_DRIVER) {
            armDriver();
        }
        require(cupti.cuptiActivityEnable(CuptiActivityKind.EXTERNAL_CORRELATION), "cuptiActivityEnable(EXTERNAL_CORRELATION)");
        for (int kind : SESSION_EXTRA_KINDS) {
            require(cupti.cuptiActivityEnable(kind), "cuptiActivityEnable(" + kind + ")");
        }
        if (ARM_UNIFIED_MEMORY) {
            armUnifiedMemory();
        }
        if (FLUSH_PERIOD_MS > 0) {
            require(cupti.cuptiActivityFlushPeriod(FLUSH_PERIOD_MS), "cuptiActivityFlushPeriod(" + FLUSH_PERIOD_MS + ")");
        }
        Diagnostics.trace(COMPONENT, "session armed RUNTIME, " + (ARM_DRIVER ? "DRIVER (" + DRIVER_CALLS + "), " : "") + "EXTERNAL_CORRELATION"
                + (ARM_SYNC_AND_OVERHEAD ? ", SYNCHRONIZATION, OVERHEAD" : "")
                + (ARM_MEMORY ? ", MEMORY2" : "") + (unifiedMemoryArmed ? ", UNIFIED_MEMORY_COUNTER" : "")
                + (ARM_PEER_COPIES ? ", MEMCPY2" : ""));
        return true;
    }

    /**
     * Configures the unified-memory counters and enables their kind; a refusal is logged (once per
     * reason) and leaves the session without it.
     */
    private void armUnifiedMemory() {
        int[] counters = unifiedMemoryCounters(UNIFIED_MEMORY_FAULTS);
        int status;
        try (org.bytedeco.cuda.cupti.CUpti_ActivityUnifiedMemoryCounterConfig config =
                     new org.bytedeco.cuda.cupti.CUpti_ActivityUnifiedMemoryCounterConfig(counters.length)) {
            for (int i = 0; i < counters.length; i++) {
                config.position(i).scope(UNIFIED_MEMORY_SCOPE_PROCESS_SINGLE_DEVICE).kind(counters[i]).deviceId(0).enable(1);
            }
            status = cupti.cuptiActivityConfigureUnifiedMemoryCounter(config.position(0), counters.length);
        }
        String refused = status != 0 ? "cuptiActivityConfigureUnifiedMemoryCounter: " + resultText(status) : null;
        if (refused == null) {
            status = cupti.cuptiActivityEnable(CuptiActivityKind.UNIFIED_MEMORY_COUNTER);
            refused = status != 0 ? "cuptiActivityEnable(UNIFIED_MEMORY_COUNTER): " + resultText(status) : null;
        }
        unifiedMemoryArmed = refused == null;
        if (refused != null && !refused.equals(lastUnifiedMemoryRefusal)) {
            Diagnostics.warn(COMPONENT, "no unified-memory records in this session (" + refused + "; "
                    + "without -Dflagtrace.cupti.unifiedMemory=true it is not asked for)");
        }
        lastUnifiedMemoryRefusal = refused;
    }

    private static String resultText(int status) {
        BytePointer text = new BytePointer((BytePointer) null);
        cupti.cuptiGetResultString(status, text);
        return text.isNull() ? Integer.toString(status) : text.getString();
    }

    @Override
    protected void disarm(Session s) {
        pool.releaseSetAside(); // the last stop's: a whole session old
        settling = true;
        if (!runtimeArmedAtInit) {
            require(cupti.cuptiActivityDisable(CuptiActivityKind.RUNTIME), "cuptiActivityDisable(RUNTIME)");
        }
        if (ARM_DRIVER) {
            cupti.cuptiActivityDisable(CuptiActivityKind.DRIVER); // not enabled when this CUPTI refused: nothing to say
        }
        require(cupti.cuptiActivityDisable(CuptiActivityKind.EXTERNAL_CORRELATION), "cuptiActivityDisable(EXTERNAL_CORRELATION)");
        for (int kind : SESSION_EXTRA_KINDS) {
            require(cupti.cuptiActivityDisable(kind), "cuptiActivityDisable(" + kind + ")");
        }
        if (unifiedMemoryArmed) {
            unifiedMemoryArmed = false;
            require(cupti.cuptiActivityDisable(CuptiActivityKind.UNIFIED_MEMORY_COUNTER), "cuptiActivityDisable(UNIFIED_MEMORY_COUNTER)");
        }
        if (!DEVICE_KINDS_AT_INIT) {
            for (int kind : DEVICE_KINDS) {
                require(cupti.cuptiActivityDisable(kind), "cuptiActivityDisable(" + kind + ")");
            }
        }
        if (FLUSH_PERIOD_MS > 0) {
            require(cupti.cuptiActivityFlushPeriod(0), "cuptiActivityFlushPeriod(0)");
        }
        // Blocking: CUPTI hands every buffer holding records to the completion callback.
        long began = System.nanoTime();
        require(cupti.cuptiActivityFlushAll(1 /* CUPTI_ACTIVITY_FLAG_FLUSH_FORCED */), "cuptiActivityFlushAll");
        lastFlushNs = System.nanoTime() - began;
    }

    /**
     * CUPTI's default flush (flag 0): the buffers whose records are all complete, as its documentation
     * advises for flushing at intervals from a thread of one's own; the forced flush is for the stop
     * only (it hands over records of work still running, without timestamps). Completions run inside
     * the call.
     */
    @Override
    protected boolean flushCompleted(Session s) {
        return cupti.cuptiActivityFlushAll(0) == 0;
    }

    @Override
    protected void afterDrain(Session s) {
        if (pool.grown() > 0) { // not a loss: the pool allocated more, CUPTI recorded on
            Diagnostics.trace(COMPONENT, "CUPTI requested more buffers than preallocated: " + pool.grown() + " allocated so far");
        }
        if (FINALIZE_AT_STOP && !DEVICE_KINDS_AT_INIT && !runtimeArmedAtInit) {
            if (detacher == null) {
                detacher = detacher();
            }
            closePops(); // no thread of ours may be inside CUPTI when it is detached
            String failure = detacher.detach(DETACH_TIMEOUT_MS);
            detached = failure == null;
            if (detached) {
                int orphaned = pool.orphanAtDetach();
                Diagnostics.trace(COMPONENT, "CUPTI detached; " + orphaned + " buffers it still held are orphaned (free again when handed back, or at the next detach)");
            }
            if (!detached) {
                openPops(); // still attached: pops must reach the stacks again
            }
            if (failure != null && !failure.equals(lastDetachFailure)) {
                Diagnostics.warn(COMPONENT, "CUPTI stays attached after the session (" + failure
                        + "): launches may stay slower until the process ends");
            }
            lastDetachFailure = failure;
        }
    }

    private static CuptiDetach detacher() {
        String override = System.getenv("FLAGOS_TRACER_LIBRARY");
        return new CuptiDetach(override != null && !override.isBlank() ? override : "libcupti.so.13");
    }

    @Override
    protected String stopDetail() {
        return ", last flush " + lastFlushNs / 1_000 + " µs, buffers delivered so far " + buffersDelivered.get() + " (after a stop " + buffersAfterStop.get()
                + "), dropped by CUPTI " + dropped.get() + (pool.returnedTwice() > 0 ? ", buffers handed back twice " + pool.returnedTwice() : "")
                + (detached ? "; detached" : "");
    }

    /** Buffers with records that CUPTI delivered after a session had stopped: their records reached no trace. */
    public long buffersAfterStop() {
        return buffersAfterStop.get();
    }

    @Override
    protected int push(long externalId) {
        return cupti.cuptiActivityPushExternalCorrelationId(CuptiExternalCorrelationDecoder.CUSTOM0, externalId);
    }

    @Override
    protected int pop(LongPointer last) {
        return cupti.cuptiActivityPopExternalCorrelationId(CuptiExternalCorrelationDecoder.CUSTOM0, last);
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

    /**
     * One buffer of CUPTI's densest records: 32,768 with the default 1 MiB buffers. A host op reaches
     * the walk when it closes; its binding and API records are in the launching thread's buffer by
     * then, and its device records follow as the GPU completes them (in CUPTI's activity buffers, handed
     * over when full: no flush period by default). So, with one launching thread, what arrives at the
     * walk between the op and its last record is at most the rest of the buffer that holds it. No
     * record is smaller than 32 B on average: a binding (24 B) always precedes the API call it binds
     * (40 B), and every other kind is 40 B or more. The replay's 2^18 (the join's horizon) held about
     * 85,000 of a 100,000-op session's ops to the close, where settling them and writing their rows was
     * most of the time from stop to trace (docs/benchmarks.md, "Live capture on the H200"). Other
     * threads' buffers delivered meanwhile, or a kernel running longer than a buffer's worth of later
     * launches take to fill it, can make a record later than that: it is drawn with its External id and
     * counted ({@code reorder_horizon.records_after_op_settled}); {@code -Dflagtrace.opSettleRecords=N}
     * sets another bound.
     */
    @Override
    public int opSettleRecords() {
        return CuptiBufferPool.BUFFER_BYTES / DENSEST_RECORD_BYTES;
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
                if (!deliver(buffer, validSize) && validSize > 0 && (detached || session() == null)) {
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
                    pool.give(buffer.address(), validSize, settling);
                }
            }
        }
    }
}
