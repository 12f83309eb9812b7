package org.flagos.trace.vendors.roctracer;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.LongPointer;
import org.flagos.trace.natives.RoctracerLibrary;
import org.flagos.trace.natives.RoctracerLibrary.Handle;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.BufferTap;
import org.flagos.trace.model.CallGate;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.DeviceTracer;
import org.flagos.trace.model.Diagnostics;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RealtimeClock;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.vendors.family.CompletedBuffers;
import org.flagos.trace.vendors.family.CuptiFamilyTracer;
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
 *       once the callbacks ran), save the clock mapping to the tap. The library stays loaded.</li>
 * </ul>
 *
 * <p>Clock: ROCtracer's timestamps are the HSA system clock, CLOCK_BOOTTIME ns on Linux. It is mapped
 * to epoch ns by one offset sampled at start with rate 1.0: BOOTTIME and REALTIME advance together
 * (both are slewed alike by NTP), so a measured rate would only add the sampling noise, and one
 * mapping for the whole session is what the dump saves, so a replay places every record where the
 * live trace did. Records more than {@link VendorClock#SLACK_NS} outside the session are dropped
 * and counted.
 */
public final class RoctracerTracer implements DeviceTracer {
    /** The {@code .fltrbuf} vendor id of ROCtracer's buffers. */
    public static final int DUMP_VENDOR = 4;
    /** What the dynamic linker is asked for, in order, without an override. */
    static final List<String> DEFAULT_LIBRARIES = List.of("libroctracer64.so", "libroctracer64.so.4",
            "libroctracer64.so.1", "/opt/rocm/lib/libroctracer64.so");
    private static final int[] SESSION_DOMAINS = {RoctracerRecord.DOMAIN_HIP_OPS, RoctracerRecord.DOMAIN_HIP_API};
    private static final int DEFAULT_BUFFER_BYTES = Integer.getInteger("flagtrace.vendor.bufferMiB", 2) << 20;

    private final String library;
    private final Handle handle;
    private final String unavailable;
    private final int bufferBytes;
    private final RoctracerLiveNames liveNames;
    private final ApiNames apiNames;
    private final Sink sink;
    private final CompletedBuffers callbacks = new CompletedBuffers("a ROCtracer buffer");
    private final CallGate pushes = new CallGate();
    private final ThreadLocal<LongPointer> popped = ThreadLocal.withInitial(() -> new LongPointer(1));
    private final AtomicLong pushFailures = new AtomicLong();
    private final AtomicLong popFailures = new AtomicLong();
    private final AtomicLong activationFailures = new AtomicLong();
    private volatile boolean clockFallbackWarned;
    private volatile Session session;

    /** One session's destination; buffers are decoded under its lock. */
    private static final class Session implements CompletedBuffers.Receiver {
        final RecordSink sink;
        final DecodeStats stats;
        final BufferTap tap;
        final RoctracerBufferDecoder decoder;
        final VendorClock clock;
        final DeviceClockMapping mapping;

        Session(RecordSink sink, DecodeStats stats, BufferTap tap, RoctracerBufferDecoder decoder, VendorClock clock,
                DeviceClockMapping mapping) {
            this.sink = sink;
            this.stats = stats;
            this.tap = tap;
            this.decoder = decoder;
            this.clock = clock;
            this.mapping = mapping;
        }

        @Override
        public void completed(BytePointer records, long size) {
            if (size <= 0) {
                return;
            }
            ByteBuffer bytes = CompletedBuffers.bytes(records, size);
            tap.buffer(DUMP_VENDOR, bytes);
            clock.resample(); // only to move the plausible span's end: the mapping stays the start's
            decoder.clock(mapping, clock.plausibleFromNs(), clock.plausibleToNs());
            decoder.decode(bytes, sink, stats);
        }

        @Override
        public DecodeStats stats() {
            return stats;
        }
    }

    /**
     * The library {@value CuptiFamilyTracer#LIBRARY_PROPERTY} or {@value CuptiFamilyTracer#LIBRARY_ENV}
     * names, else the first of {@link #DEFAULT_LIBRARIES} that loads.
     */
    public RoctracerTracer() {
        this(null, DEFAULT_BUFFER_BYTES);
    }

    /** The library at {@code library} (null: as {@link #RoctracerTracer()}), with buffers of {@code bufferBytes}. */
    public RoctracerTracer(String library, int bufferBytes) {
        this.bufferBytes = bufferBytes;
        List<String> candidates = library != null ? List.of(library) : candidates();
        Handle opened = null;
        String tried = null;
        List<String> reasons = new ArrayList<>();
        try {
            BytePointer error = new BytePointer(1024);
            for (String candidate : candidates) {
                tried = candidate;
                opened = RoctracerLibrary.ft_roc_open(candidate, error, 1024);
                if (opened != null && !opened.isNull()) {
                    break;
                }
                opened = null;
                reasons.add(error.getString(StandardCharsets.UTF_8));
            }
        } catch (LinkageError e) { // JavaCPP or the shim's JNI library missing
            reasons.add("flagtrace's native shim could not be loaded (" + e + ")");
        }
        this.library = opened != null ? tried : String.join(", ", candidates);
        this.handle = opened;
        this.unavailable = opened != null ? "" : "ROCtracer library " + this.library + " could not be loaded: "
                + String.join("; ", reasons);
        this.liveNames = opened != null ? new RoctracerLiveNames(opened) : null;
        this.apiNames = new RoctracerApiNames(liveNames != null ? liveNames : h -> null);
        this.sink = opened != null ? new Sink() : null;
    }

    private static List<String> candidates() {
        String property = System.getProperty(CuptiFamilyTracer.LIBRARY_PROPERTY);
        if (property != null && !property.isBlank()) {
            return List.of(property);
        }
        String env = System.getenv(CuptiFamilyTracer.LIBRARY_ENV);
        return env != null && !env.isBlank() ? List.of(env) : DEFAULT_LIBRARIES;
    }

    /** The library this tracer opened (or the ones it tried). */
    public String library() {
        return library;
    }

    @Override
    public String name() {
        return "roctracer";
    }

    @Override
    public boolean available() {
        return handle != null;
    }

    @Override
    public String unavailableReason() {
        return unavailable;
    }

    @Override
    public ApiNames apiNames() {
        return apiNames;
    }

    @Override
    public synchronized void start(RecordSink recordSink, NameTable names, DecodeStats stats, BufferTap tap) {
        if (!available() || session != null) {
            return;
        }
        VendorClock clock = VendorClock.start(this::vendorNow, false);
        DeviceClockMapping mapping = clock.mapping(); // the start pair, rate 1.0: see the class comment
        liveNames.tap(tap);
        Session s = new Session(recordSink, stats, tap, new RoctracerBufferDecoder(liveNames, names, mapping), clock,
                mapping);
        session = s;
        callbacks.open();
        int status = RoctracerLibrary.ft_roc_open_pool(handle, bufferBytes, sink);
        if (status != 0) {
            endActivation(s, "roctracer_open_pool_expl returned " + status);
            return;
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
            endActivation(s, "no activity domain could be enabled");
            return;
        }
        pushes.open();
        Diagnostics.trace(name(), "session armed (HIP_OPS, HIP_API) from " + library + ", API version "
                + RoctracerLibrary.ft_roc_version(handle));
    }

    private void endActivation(Session s, String why) {
        callbacks.closeAndDrain();
        session = null;
        activationFailures.incrementAndGet();
        System.err.println("flagtrace: roctracer activity capture could not start (" + why
                + "); CPU-side profiling continues");
    }

    @Override
    public synchronized void stop() {
        Session s = session;
        if (!available() || s == null) {
            return;
        }
        pushes.closeAndDrain();
        for (int domain : SESSION_DOMAINS) {
            check(RoctracerLibrary.ft_roc_disable(handle, domain), "roctracer_disable_domain_activity(" + domain + ")");
        }
        check(RoctracerLibrary.ft_roc_flush(handle), "roctracer_flush_activity_expl");
        check(RoctracerLibrary.ft_roc_close_pool(handle), "roctracer_close_pool_expl");
        callbacks.closeAndDrain();
        synchronized (s) {
            s.tap.clock(s.mapping);
        }
        session = null;
        Diagnostics.trace(name(), "session stopped; buffers outside sessions " + callbacks.outsideSession()
                + ", failed pushes " + pushFailures.get() + ", failed pops " + popFailures.get()
                + ", dispatches without a kernel name " + RoctracerLibrary.ft_roc_unread_names(handle));
    }

    @Override
    public boolean pushCorrelation(ExternalId id) {
        if (!pushes.enter()) {
            return false;
        }
        try {
            if (RoctracerLibrary.ft_roc_push(handle, id.value()) == 0) {
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
        // A real out-parameter, and any non-zero status counted (old releases return positive codes).
        if (RoctracerLibrary.ft_roc_pop(handle, popped.get()) != 0) {
            popFailures.incrementAndGet();
        }
    }

    /** Pushes roctracer refused since the tracer was built. */
    public long pushFailures() {
        return pushFailures.get();
    }

    /** Pops roctracer refused since the tracer was built. */
    public long popFailures() {
        return popFailures.get();
    }

    /** Sessions that started without device capture because roctracer refused activation. */
    public long activationFailures() {
        return activationFailures.get();
    }

    @Override
    public int deviceCount() {
        return available() ? 1 : 0;
    }

    @Override
    public List<DeviceProperties> deviceProperties() {
        return List.of(); // no CUDA occupancy formula applies: those fields are left out
    }

    /** ROCtracer has no count of records it dropped. */
    @Override
    public long droppedByVendor() {
        return 0;
    }

    @Override
    public long timestampNs() {
        Session s = session;
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

    /**
     * Calls {@code int64_t symbol(int64_t)} in the library: how a workload drives the library's own
     * entry points (the fake library's scripted HIP calls). -1 when the symbol is absent.
     */
    public long invoke(String symbol, long argument) {
        if (!available()) {
            throw new IllegalStateException(unavailable);
        }
        return RoctracerLibrary.ft_roc_invoke(handle, symbol, argument);
    }

    private void check(int status, String call) {
        if (status != 0) {
            Diagnostics.warn(name(), call + " returned " + status);
        }
    }

    /** Receives completed buffers from the shim, on roctracer's thread. */
    private final class Sink extends RoctracerLibrary.BufferSink {
        @Override
        public void call(BytePointer records, long size) {
            try {
                callbacks.deliver(session, records, size);
            } catch (Throwable e) { // never unwind into roctracer's native frame
                Diagnostics.warn(name(), "a buffer callback failed: " + e);
            }
        }
    }
}
