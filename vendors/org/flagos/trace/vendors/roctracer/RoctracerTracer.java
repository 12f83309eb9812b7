package org.flagos.trace.vendors.roctracer;

import java.util.List;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.LongPointer;
import org.flagos.trace.natives.RoctracerLibrary;
import org.flagos.trace.natives.RoctracerLibrary.Handle;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.BufferTap;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.Diagnostics;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RealtimeClock;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.vendors.activity.ActivityTracer;
import org.flagos.trace.vendors.activity.BufferRoutes;
import org.flagos.trace.vendors.activity.VendorLibrary;
import org.flagos.trace.vendors.family.VendorClock;

/**
 * The tracer of AMD's ROCtracer (ROCm; Hygon DCU's DTK ships it), through the native shim
 * ({@link RoctracerLibrary}) by path. Only the {@code _expl} entry points are used, which every
 * public release exports (the plain pool calls were header inlines up to rocm-5.2).
 *
 * <ul>
 *   <li>start: sample ROCtracer's clock against realtime, open a pool whose buffers come to this
 *       tracer, enable HIP_OPS and HIP_API activity. EXT_API needs no enabling: roctracer writes an
 *       EXTERN_ID record before every API record of a thread that pushed an id;</li>
 *   <li>each completed buffer (on roctracer's thread): tap the records, decode under the session's
 *       lock;</li>
 *   <li>stop: shut the push gate, disable both domains, flush, close the pool (roctracer returns
 *       once the callbacks ran), save the clock mapping to the tap. The library stays loaded;</li>
 *   <li>flush barriers: the pool is flushed mid-session ({@link #flushCompleted}).</li>
 * </ul>
 *
 * <p>Clock: ROCtracer's timestamps are the HSA system clock, CLOCK_BOOTTIME ns on Linux. It is mapped
 * to epoch ns by one offset sampled at start with rate 1.0: BOOTTIME and REALTIME advance together
 * (both are slewed alike by NTP), so a measured rate would only add the sampling noise, and one
 * mapping for the whole session is what the dump saves, so a replay places every record where the
 * live trace did. Records more than {@link VendorClock#SLACK_NS} outside the session are dropped
 * and counted.
 */
public final class RoctracerTracer extends ActivityTracer<RoctracerTracer.RocSession> {
    /** The {@code .fltrbuf} vendor id of ROCtracer's buffers. */
    public static final int DUMP_VENDOR = 4;
    /** What the dynamic linker is asked for, in order, without an override. */
    static final List<String> DEFAULT_LIBRARIES = List.of("libroctracer64.so", "libroctracer64.so.4",
            "libroctracer64.so.1", "/opt/rocm/lib/libroctracer64.so");
    private static final int[] SESSION_DOMAINS = {RoctracerRecord.DOMAIN_HIP_OPS, RoctracerRecord.DOMAIN_HIP_API};

    private final int bufferBytes;
    private final VendorLibrary<Handle> library;
    private final Handle handle;
    private final RoctracerLiveNames liveNames;
    private final ApiNames apiNames;
    private volatile boolean clockFallbackWarned;

    /** One session: the clock mapping sampled at start, and the clock resampled per buffer for the plausible span. */
    static final class RocSession extends Session {
        final RoctracerBufferDecoder decoder;
        final VendorClock clock;
        final DeviceClockMapping mapping;

        RocSession(RecordSink sink, DecodeStats stats, BufferTap tap, RoctracerBufferDecoder decoder, VendorClock clock,
                   DeviceClockMapping mapping) {
            super(DUMP_VENDOR, decoder, sink, stats, tap);
            this.decoder = decoder;
            this.clock = clock;
            this.mapping = mapping;
        }

        @Override
        protected void beforeDecode() {
            clock.resample(); // only to move the plausible span's end: the mapping stays the start's
            decoder.clock(mapping, clock.plausibleFromNs(), clock.plausibleToNs());
        }
    }

    /**
     * The library {@value #LIBRARY_PROPERTY} or {@value #LIBRARY_ENV} names, else the first of
     * {@link #DEFAULT_LIBRARIES} that loads.
     */
    public RoctracerTracer() {
        this(null, BUFFER_BYTES);
    }

    /** The library at {@code library} (null: as {@link #RoctracerTracer()}), with buffers of {@code bufferBytes}. */
    public RoctracerTracer(String library, int bufferBytes) {
        super("roctracer", "a ROCtracer buffer", false);
        this.bufferBytes = bufferBytes;
        this.library = VendorLibrary.open("ROCtracer", VendorLibrary.candidates(library, DEFAULT_LIBRARIES),
                RoctracerLibrary::ft_roc_open);
        this.handle = this.library.handle();
        this.liveNames = handle != null ? new RoctracerLiveNames(handle) : null;
        this.apiNames = new RoctracerApiNames(liveNames != null ? liveNames : h -> null);
        if (handle != null) {
            ROUTES.route(handle.address(), this);
        }
    }

    @Override
    protected String load() {
        return handle != null ? null : library.failure();
    }

    /** The library this tracer opened (or the ones it tried). */
    public String library() {
        return library.path();
    }

    @Override
    public ApiNames apiNames() {
        return apiNames;
    }

    @Override
    protected RocSession newSession(RecordSink recordSink, NameTable names, DecodeStats stats, BufferTap tap) {
        VendorClock clock = VendorClock.start(this::vendorNow, false);
        DeviceClockMapping mapping = clock.mapping(); // the start pair, rate 1.0: see the class comment
        liveNames.tap(tap);
        return new RocSession(recordSink, stats, tap, new RoctracerBufferDecoder(liveNames, names, mapping), clock, mapping);
    }

    @Override
    protected boolean arm(RocSession s) {
        int status = RoctracerLibrary.ft_roc_open_pool(handle, bufferBytes, Shared.SINK);
        if (status == RoctracerLibrary.NO_SINK) {
            activationFailed("flagtrace's buffer callback is a null function pointer (JavaCPP's callback slots are taken)");
            return false;
        }
        if (status != 0) {
            activationFailed("roctracer_open_pool_expl returned " + status);
            return false;
        }
        int enabled = 0;
        for (int domain : SESSION_DOMAINS) {
            int result = RoctracerLibrary.ft_roc_enable(handle, domain);
            if (result == 0) {
                enabled++;
            } else {
                Diagnostics.warn(name(), "roctracer_enable_domain_activity_expl(" + domain + ") returned " + result);
            }
        }
        if (enabled == 0) {
            RoctracerLibrary.ft_roc_close_pool(handle);
            activationFailed("no activity domain could be enabled");
            return false;
        }
        Diagnostics.trace(name(), "session armed (HIP_OPS, HIP_API) from " + library.path() + ", API version "
                + RoctracerLibrary.ft_roc_version(handle));
        return true;
    }

    /** Closing the pool returns once roctracer ran the callbacks. */
    @Override
    protected void disarm(RocSession s) {
        for (int domain : SESSION_DOMAINS) {
            check(RoctracerLibrary.ft_roc_disable(handle, domain), "roctracer_disable_domain_activity(" + domain + ")");
        }
        check(RoctracerLibrary.ft_roc_flush(handle), "roctracer_flush_activity_expl");
        check(RoctracerLibrary.ft_roc_close_pool(handle), "roctracer_close_pool_expl");
    }

    /**
     * {@code roctracer_flush_activity_expl} on the session's pool. A HIP call writes its EXTERN_ID binding
     * and its API record into the pool at its exit, before it returns ({@code ApiTracer::Exit}); the
     * flush hands the pool's current buffer to roctracer's consumer thread and returns once that thread
     * has run the callback, and the shim's callback decodes and publishes into the ring before it returns
     * (it queues nothing). Buffers filled before went to the same thread earlier, one at a time, so they
     * were consumed first. When the current buffer is empty the flush returns without waiting, which still
     * holds: a full buffer is switched only to write the record that did not fit (the new one is then not
     * empty) or by a write or flush that waits for the consumer itself, and flushes are serialized with
     * each other and with the stop. Read from ROCm/roctracer's {@code MemoryPool} (rocm-6.2 and, in its
     * older form, rocm-4.5 to 5.2); not run against a real library.
     */
    @Override
    protected boolean flushCompleted(RocSession s) {
        return RoctracerLibrary.ft_roc_flush(handle) == 0;
    }

    @Override
    protected void afterDrain(RocSession s) {
        synchronized (s) {
            s.tap().clock(s.mapping);
        }
    }

    @Override
    protected String stopDetail() {
        return ", dispatches without a kernel name " + RoctracerLibrary.ft_roc_unread_names(handle);
    }

    @Override
    protected int push(long externalId) {
        return RoctracerLibrary.ft_roc_push(handle, externalId);
    }

    /** Any non-zero status is counted (old releases return positive codes). */
    @Override
    protected int pop(LongPointer last) {
        return RoctracerLibrary.ft_roc_pop(handle, last);
    }

    @Override
    public long timestampNs() {
        RocSession s = session();
        return s != null ? s.mapping.toEpoch(vendorNow()) : RealtimeClock.nowNs();
    }

    /** ROCtracer's clock; CLOCK_BOOTTIME when it is not running yet (HSA not initialised: it reads 0). */
    private long vendorNow() {
        long now = RoctracerLibrary.ft_roc_timestamp(handle);
        if (now >= 0) {
            return now;
        }
        if (!clockFallbackWarned) {
            clockFallbackWarned = true;
            Diagnostics.trace(name(), "roctracer_get_timestamp gave no time; reading CLOCK_BOOTTIME, the clock it reads on Linux");
        }
        return RoctracerLibrary.ft_roc_boottime();
    }

    @Override
    protected long invokeSymbol(String symbol, long argument) {
        return RoctracerLibrary.ft_roc_invoke(handle, symbol, argument);
    }

    /** Which tracer a completed buffer goes to, by the shim's library that completed it. */
    private static final BufferRoutes ROUTES = new BufferRoutes();

    /** The one sink of every ROCtracer tracer in the process (see {@link BufferRoutes}); made on first use. */
    private static final class Shared {
        static final Sink SINK = new Sink();
    }

    /** Receives completed buffers from the shim, on roctracer's thread. */
    private static final class Sink extends RoctracerLibrary.BufferSink {
        @Override
        public void call(long library, BytePointer records, long size) {
            ROUTES.deliver(library, records, size);
        }
    }
}
