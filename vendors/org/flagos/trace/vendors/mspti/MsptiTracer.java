package org.flagos.trace.vendors.mspti;

import com.lmax.disruptor.EventHandler;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.LongPointer;
import org.flagos.trace.natives.MsptiLibrary;
import org.flagos.trace.natives.MsptiLibrary.Handle;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.BufferTap;
import org.flagos.trace.model.CallGate;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.DeviceTracer;
import org.flagos.trace.model.Diagnostics;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RealtimeClock;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.vendors.family.CompletedBuffers;

/**
 * Ascend's tracer: CANN's public MSPTI activity API ({@code libmspti.so}) through flagtrace's shim
 * ({@link MsptiLibrary}).
 *
 * <ul>
 *   <li>Load: lazily, the first time the tracer is asked whether it is available (at session
 *       start), from {@value #LIBRARY_PROPERTY}, else {@value #LIBRARY_ENV}, else
 *       {@code libmspti.so} on the linker's path. Never at class load: CANN's interposer is not
 *       safe to impose on a process that does not profile. The library stays loaded afterwards
 *       (CANN may retain interposed ACL function pointers).</li>
 *   <li>Start: subscribe (MSPTI has one subscriber per process; another owner leaves CPU profiling
 *       running without device records), register the buffer callbacks, enable the kinds.</li>
 *   <li>Stop: shut the push gate, then unsubscribe first and flush after (the order measured on
 *       CANN 9.0), then wait for the callbacks in flight.</li>
 *   <li>Pop: always with a real out-parameter (CANN 9.0 refuses a null one without unwinding).</li>
 *   <li>Copies and memsets: CANN records them only when libmspti.so was preloaded at process start;
 *       {@link #capturesTransfers()} says whether it was, from the link map sampled once.</li>
 * </ul>
 *
 * Timestamps are MSPTI's epoch nanoseconds (CLOCK_REALTIME-based), so no clock mapping is needed.
 */
public final class MsptiTracer implements DeviceTracer {
    /** The {@code .fltrbuf} vendor id of MSPTI buffers. */
    public static final int DUMP_VENDOR = 2;
    /** The environment variable that points a tracer at a non-default library (as the seed's shims do). */
    public static final String LIBRARY_ENV = "FLAGOS_TRACER_LIBRARY";
    /** The system property that does the same, for a JVM that cannot set its environment. */
    public static final String LIBRARY_PROPERTY = "flagtrace.tracer.library";
    private static final String DEFAULT_LIBRARY = "libmspti.so";
    private static final int BUFFER_BYTES = Integer.getInteger("flagtrace.vendor.bufferMiB", 2) << 20;
    private static final int MSPTI_ERROR_WITHOUT_LD_PRELOAD = 6;
    /** Kinds enabled for a session, in order: device work first, bindings before the calls they bind. */
    private static final int[] SESSION_KINDS = {MsptiActivityKind.KERNEL, MsptiActivityKind.MEMCPY,
            MsptiActivityKind.MEMSET, MsptiActivityKind.EXTERNAL_CORRELATION, MsptiActivityKind.ACL_API,
            MsptiActivityKind.NODE_API, MsptiActivityKind.RUNTIME_API};

    /** Sampled when this class initializes, before any instance could dlopen the library. */
    private static final boolean PRELOADED = MsptiPreload.preloaded();

    private final String library;
    private final AscendDevices devices;
    private final CompletedBuffers callbacks = new CompletedBuffers("an MSPTI buffer");
    private final CallGate pushes = new CallGate();
    private final ThreadLocal<LongPointer> popped = ThreadLocal.withInitial(() -> new LongPointer(1));
    private final AtomicLong pushFailures = new AtomicLong();
    private final AtomicLong popFailures = new AtomicLong();
    private boolean opened;
    private Handle handle;
    private String unavailable = "";
    private Sink sink;
    private boolean legacyApiKind;
    private volatile Session session;
    private volatile NameTable sessionNames;

    /** One session's destination; buffers are decoded under its lock (MSPTI may complete on several threads). */
    private static final class Session implements CompletedBuffers.Receiver {
        final RecordSink sink;
        final DecodeStats stats;
        final BufferTap tap;
        final MsptiBufferDecoder decoder;
        boolean subscribed;

        Session(RecordSink sink, DecodeStats stats, BufferTap tap, MsptiBufferDecoder decoder) {
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

    /** The tracer of this process: library from the property or environment, devices from {@value AscendDevices#VISIBLE_DEVICES}. */
    public MsptiTracer() {
        this(null, System.getenv(AscendDevices.VISIBLE_DEVICES));
    }

    /**
     * @param library        the library to open, or null for the property, environment or default
     * @param visibleDevices the value of {@code ASCEND_RT_VISIBLE_DEVICES} to map device ids through
     *                       (null: none)
     */
    public MsptiTracer(String library, String visibleDevices) {
        this.library = library != null ? library : defaultLibrary();
        this.devices = AscendDevices.parse(visibleDevices);
    }

    private static String defaultLibrary() {
        String property = System.getProperty(LIBRARY_PROPERTY);
        if (property != null && !property.isBlank()) {
            return property;
        }
        String env = System.getenv(LIBRARY_ENV);
        return env != null && !env.isBlank() ? env : DEFAULT_LIBRARY;
    }

    /** True when libmspti.so was in the link map at class initialization (preloaded at process start). */
    public static boolean libraryPreloaded() {
        return PRELOADED;
    }

    /** True when a {@code /proc/PID/maps} text maps libmspti.so: the parser behind {@link #libraryPreloaded()}. */
    public static boolean mapsHoldMspti(String maps) {
        return MsptiPreload.mapsHoldMspti(maps);
    }

    /** Whether copies and memsets can be captured: only with libmspti.so preloaded. */
    public boolean capturesTransfers() {
        return libraryPreloaded();
    }

    /** The library this tracer opens (or tried to). */
    public String library() {
        return library;
    }

    private synchronized boolean open() {
        if (!opened) {
            opened = true;
            try {
                BytePointer error = new BytePointer(1024);
                Handle h = MsptiLibrary.ftm_open(library, error, 1024);
                if (h == null || h.isNull()) {
                    unavailable = "mspti library " + library + " could not be loaded: " + error.getString(StandardCharsets.UTF_8);
                } else {
                    handle = h;
                    sink = new Sink();
                }
            } catch (LinkageError e) { // JavaCPP or the shim's JNI library missing
                unavailable = "flagtrace's native shim could not be loaded (" + e + ")";
            }
        }
        return handle != null;
    }

    @Override
    public String name() {
        return "mspti";
    }

    @Override
    public boolean available() {
        return open();
    }

    @Override
    public String unavailableReason() {
        open();
        return unavailable;
    }

    @Override
    public ApiNames apiNames() {
        return MsptiApiNames.INSTANCE;
    }

    /** The correlation remap, fresh for each session; it reads API names from the session's table. */
    @Override
    public List<EventHandler<TraceRecord>> stages() {
        return List.of(new MsptiCorrelationRemap(id -> sessionNames.name(id)));
    }

    @Override
    public synchronized void start(RecordSink recordSink, NameTable names, DecodeStats stats, BufferTap tap) {
        if (!open() || session != null) {
            return;
        }
        sessionNames = names;
        Session s = new Session(recordSink, stats, tap,
                new MsptiBufferDecoder(new LiveMsptiStrings(tap), names, devices));
        devices.save(tap);
        int status = MsptiLibrary.ftm_subscribe(handle);
        if (status != 0) {
            Diagnostics.warn("mspti", "msptiSubscribe returned " + status + " (another MSPTI subscriber owns this"
                    + " process?): profiling continues without device records");
            return;
        }
        s.subscribed = true;
        session = s;
        callbacks.open();
        check(MsptiLibrary.ftm_register(handle, BUFFER_BYTES, sink), "msptiActivityRegisterCallbacks");
        for (int kind : SESSION_KINDS) {
            enable(kind);
        }
        if (!capturesTransfers()) {
            Diagnostics.trace("mspti", "libmspti.so was not preloaded at process start: CANN records no copies or"
                    + " memsets (LD_PRELOAD=$ASCEND_HOME_PATH/lib64/libmspti.so for them)");
        }
        pushes.open();
        Diagnostics.trace("mspti", "session armed from " + library);
    }

    private void enable(int kind) {
        int status = MsptiLibrary.ftm_enable(handle, kind);
        if (status == 0) {
            return;
        }
        if (kind == MsptiActivityKind.RUNTIME_API && MsptiLibrary.ftm_enable(handle, MsptiActivityKind.API) == 0) {
            legacyApiKind = true; // a CANN release from before the ACL/NODE/RUNTIME split: its one API kind
            Diagnostics.trace("mspti", "RUNTIME_API not known to this libmspti; API records through kind API");
            return;
        }
        Diagnostics.warn("mspti", "msptiActivityEnable(" + kind + ") returned " + status
                + (status == MSPTI_ERROR_WITHOUT_LD_PRELOAD ? " (this kind needs libmspti.so preloaded at process start)" : ""));
    }

    @Override
    public synchronized void stop() {
        Session s = session;
        if (s == null) {
            return;
        }
        pushes.closeAndDrain();
        check(MsptiLibrary.ftm_unsubscribe(handle), "msptiUnsubscribe");
        for (int kind : SESSION_KINDS) {
            MsptiLibrary.ftm_disable(handle, kind);
        }
        if (legacyApiKind) {
            MsptiLibrary.ftm_disable(handle, MsptiActivityKind.API);
        }
        check(MsptiLibrary.ftm_flush_all(handle, 1), "msptiActivityFlushAll");
        callbacks.closeAndDrain();
        session = null;
        Diagnostics.trace("mspti", "session stopped; buffers outside sessions " + callbacks.outsideSession()
                + ", failed pushes " + pushFailures.get() + ", failed pops " + popFailures.get());
    }

    @Override
    public boolean pushCorrelation(ExternalId id) {
        if (!pushes.enter()) {
            return false;
        }
        try {
            if (MsptiLibrary.ftm_push(handle, MsptiActivityKind.EXTERNAL_KIND_CUSTOM0, id.value()) == 0) {
                return true;
            }
            pushFailures.incrementAndGet();
            return false;
        } finally {
            pushes.exit();
        }
    }

    @Override
    public void popCorrelation() {
        if (handle == null) {
            return;
        }
        if (MsptiLibrary.ftm_pop(handle, MsptiActivityKind.EXTERNAL_KIND_CUSTOM0, popped.get()) != 0) {
            popFailures.incrementAndGet();
        }
    }

    /** Pushes MSPTI refused since the tracer was built. */
    public long pushFailures() {
        return pushFailures.get();
    }

    /** Pops MSPTI refused since the tracer was built. */
    public long popFailures() {
        return popFailures.get();
    }

    @Override
    public int deviceCount() {
        return available() ? 1 : 0;
    }

    @Override
    public List<DeviceProperties> deviceProperties() {
        return List.of(); // no CUDA occupancy formula applies to Ascend: those fields are left out
    }

    @Override
    public long droppedByVendor() {
        return 0; // MSPTI has no count of dropped records
    }

    @Override
    public long timestampNs() {
        return RealtimeClock.nowNs();
    }

    /**
     * Calls {@code int64_t symbol(int64_t)} in the loaded library: how a workload drives the
     * library's own entry points (the fake MSPTI's scripted launches). -1 when the symbol is absent.
     */
    public long invoke(String symbol, long argument) {
        if (!available()) {
            throw new IllegalStateException(unavailable);
        }
        return MsptiLibrary.ftm_invoke(handle, symbol, argument);
    }

    private static void check(int status, String call) {
        if (status != 0) {
            Diagnostics.warn("mspti", call + " returned " + status);
        }
    }

    /** Receives completed buffers from the shim, on MSPTI's thread. */
    private final class Sink extends MsptiLibrary.BufferSink {
        @Override
        public void call(BytePointer buffer, long validSize) {
            try {
                callbacks.deliver(session, buffer, validSize);
            } catch (Throwable e) { // never unwind into MSPTI's native frame
                Diagnostics.warn("mspti", "a completion callback failed: " + e);
            }
        }
    }
}
