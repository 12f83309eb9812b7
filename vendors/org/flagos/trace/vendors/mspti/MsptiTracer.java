package org.flagos.trace.vendors.mspti;

import com.lmax.disruptor.EventHandler;
import java.util.List;
import java.util.Map;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.LongPointer;
import org.flagos.trace.natives.MsptiLibrary;
import org.flagos.trace.natives.MsptiLibrary.Handle;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.BufferTap;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.Diagnostics;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RealtimeClock;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.vendors.activity.ActivityTracer;
import org.flagos.trace.vendors.activity.BufferRoutes;
import org.flagos.trace.vendors.activity.VendorLibrary;

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
 *   <li>Flush barriers: the session's mid-session flush ({@link #flushCompleted}) hands over every
 *       buffer; the remap stage keeps a barrier from claiming calls it still parks.</li>
 *   <li>Pop: always with a real out-parameter (CANN 9.0 refuses a null one without unwinding).</li>
 *   <li>Copies and memsets: CANN records them only when libmspti.so was preloaded at process start;
 *       {@link #capturesTransfers()} says whether it was, from the link map sampled once.</li>
 * </ul>
 *
 * Timestamps are MSPTI's epoch nanoseconds (CLOCK_REALTIME-based), so no clock mapping is needed.
 */
public final class MsptiTracer extends ActivityTracer<ActivityTracer.Session> {
    /** The {@code .fltrbuf} vendor id of MSPTI buffers. */
    public static final int DUMP_VENDOR = 2;
    private static final String DEFAULT_LIBRARY = "libmspti.so";
    /** CANN's set_env.sh points it at the toolkit (…/ascend-toolkit/latest), which holds libmspti under tools/mspti/lib64. */
    static final String ASCEND_HOME = "ASCEND_HOME_PATH";
    private static final int MSPTI_ERROR_WITHOUT_LD_PRELOAD = 6;
    /** Kinds enabled for a session, in order: device work first, bindings before the calls they bind. */
    private static final int[] SESSION_KINDS = {MsptiActivityKind.KERNEL, MsptiActivityKind.MEMCPY,
            MsptiActivityKind.MEMSET, MsptiActivityKind.EXTERNAL_CORRELATION, MsptiActivityKind.ACL_API,
            MsptiActivityKind.NODE_API, MsptiActivityKind.RUNTIME_API};

    /** Sampled when this class initializes, before any instance could dlopen the library. */
    private static final boolean PRELOADED = MsptiPreload.preloaded();

    private final List<String> candidates;
    private final AscendDevices devices;
    private VendorLibrary<Handle> library;
    private Handle handle;
    private boolean legacyApiKind;
    private volatile NameTable sessionNames;

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
        super("mspti", "an MSPTI buffer", false);
        this.candidates = VendorLibrary.candidates(library, defaultLibraries(System.getenv(ASCEND_HOME)));
        this.devices = AscendDevices.parse(visibleDevices);
    }

    /**
     * Where libmspti is looked for when no library is named: the dynamic loader's search first, then, with CANN's
     * {@code ASCEND_HOME_PATH} set, the toolkit's {@code tools/mspti/lib64} (where CANN installs it) and its
     * {@code lib64}. The injected library ({@code native/inject/flagtrace_mspti.c}) searches the same places.
     */
    static List<String> defaultLibraries(String ascendHome) {
        if (ascendHome == null || ascendHome.isBlank()) {
            return List.of(DEFAULT_LIBRARY);
        }
        String home = ascendHome.endsWith("/") ? ascendHome.substring(0, ascendHome.length() - 1) : ascendHome;
        return List.of(DEFAULT_LIBRARY, home + "/tools/mspti/lib64/" + DEFAULT_LIBRARY, home + "/lib64/" + DEFAULT_LIBRARY);
    }

    /**
     * The name-table entries that map a process's physical device ids to its logical ordinals, from its value of
     * {@code ASCEND_RT_VISIBLE_DEVICES} (null or blank: none), as a live session saves them beside its capture:
     * for a capture made outside this process ({@code flagtrace run}'s preloaded library).
     */
    public static Map<Long, String> deviceNameEntries(String visibleDevices) {
        return AscendDevices.parse(visibleDevices).entries();
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
        return library != null ? library.path() : candidates.get(0);
    }

    /** Opened lazily, never at class load: CANN's interposer is not safe to impose on a process that does not profile. */
    @Override
    protected String load() {
        library = VendorLibrary.open("mspti", candidates, MsptiLibrary::ftm_open);
        handle = library.handle();
        if (handle == null) {
            return library.failure();
        }
        ROUTES.route(handle.address(), this);
        return null;
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
    protected Session newSession(RecordSink recordSink, NameTable names, DecodeStats stats, BufferTap tap) {
        sessionNames = names;
        Session s = new Session(DUMP_VENDOR, new MsptiBufferDecoder(new LiveMsptiStrings(tap), names, devices),
                recordSink, stats, tap);
        devices.save(tap);
        int status = MsptiLibrary.ftm_subscribe(handle);
        if (status != 0) {
            Diagnostics.warn("mspti", "msptiSubscribe returned " + status + " (another MSPTI subscriber owns this"
                    + " process?): profiling continues without device records");
            return null;
        }
        return s;
    }

    @Override
    protected boolean arm(Session s) {
        int registered = MsptiLibrary.ftm_register(handle, BUFFER_BYTES, Shared.SINK);
        if (registered == MsptiLibrary.NO_SINK) {
            activationFailed("flagtrace's buffer callback is a null function pointer (JavaCPP's callback slots are taken)");
            return false;
        }
        check(registered, "msptiActivityRegisterCallbacks");
        for (int kind : SESSION_KINDS) {
            enable(kind);
        }
        if (!capturesTransfers()) {
            Diagnostics.trace("mspti", "libmspti.so was not preloaded at process start: CANN records no copies or"
                    + " memsets (LD_PRELOAD=$ASCEND_HOME_PATH/tools/mspti/lib64/libmspti.so for them)");
        }
        Diagnostics.trace("mspti", "session armed from " + library());
        return true;
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

    /** Unsubscribes first and flushes after: the order measured on CANN 9.0. */
    @Override
    protected void disarm(Session s) {
        check(MsptiLibrary.ftm_unsubscribe(handle), "msptiUnsubscribe");
        for (int kind : SESSION_KINDS) {
            MsptiLibrary.ftm_disable(handle, kind);
        }
        if (legacyApiKind) {
            MsptiLibrary.ftm_disable(handle, MsptiActivityKind.API);
        }
        check(MsptiLibrary.ftm_flush_all(handle, 1), "msptiActivityFlushAll");
    }

    /**
     * {@code msptiActivityFlushAll(0)}, twice. MSPTI records a call's external-correlation record and its
     * API record into its current buffer on the calling thread, before the call returns; FlushAll
     * completes the full buffers queued for MSPTI's thread, joins the threads completing those it
     * already took, then completes the current buffer, each completion running the shim's callback, which
     * decodes and publishes into the ring before it returns (CANN ignores the flag; the documentation
     * calls FlushAll synchronous: it returns once all activity data is consumed). One gap, read from the
     * public implementation (Ascend/mspti, {@code ActivityManager::FlushAll}): a call recording on another
     * thread while FlushAll runs can queue the full current buffer after FlushAll took the queue and
     * before it takes the current buffer, and that buffer, holding records of calls that returned before
     * the flush, then waits for MSPTI's thread. The second FlushAll takes it from the queue (or joins the
     * thread completing it). API records still parked in {@link MsptiCorrelationRemap} are the remap's to
     * account for at the barrier.
     */
    @Override
    protected boolean flushCompleted(Session s) {
        return MsptiLibrary.ftm_flush_all(handle, 0) == 0 && MsptiLibrary.ftm_flush_all(handle, 0) == 0;
    }

    @Override
    protected int push(long externalId) {
        return MsptiLibrary.ftm_push(handle, MsptiActivityKind.EXTERNAL_KIND_CUSTOM0, externalId);
    }

    @Override
    protected int pop(LongPointer last) {
        return handle == null ? 0 : MsptiLibrary.ftm_pop(handle, MsptiActivityKind.EXTERNAL_KIND_CUSTOM0, last);
    }

    /** MSPTI's records are in epoch ns (CLOCK_REALTIME-based): no clock mapping is needed. */
    @Override
    public long timestampNs() {
        return RealtimeClock.nowNs();
    }

    @Override
    protected long invokeSymbol(String symbol, long argument) {
        return MsptiLibrary.ftm_invoke(handle, symbol, argument);
    }

    /** Which tracer a completed buffer goes to, by the shim's library that completed it. */
    private static final BufferRoutes ROUTES = new BufferRoutes();

    /** The one sink of every MSPTI tracer in the process (see {@link BufferRoutes}); made on first use. */
    private static final class Shared {
        static final Sink SINK = new Sink();
    }

    /** Receives completed buffers from the shim, on MSPTI's thread. */
    private static final class Sink extends MsptiLibrary.BufferSink {
        @Override
        public void call(long library, BytePointer buffer, long validSize) {
            ROUTES.deliver(library, buffer, validSize);
        }
    }
}
