package org.flagos.trace.vendors.family;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.LongPointer;
import org.flagos.trace.natives.CuptiFamilyLibrary;
import org.flagos.trace.natives.CuptiFamilyLibrary.Handle;
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
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;

/**
 * The tracer of a CUPTI-shaped vendor library (MUPTI, TOPSPTI, MCPTI, PPU's CUPTI), reached through
 * the native shim ({@link CuptiFamilyLibrary}) by path and symbol prefix. A vendor's file gives its
 * {@link Profile} and its decoder; the lifecycle is the same for all:
 *
 * <ul>
 *   <li>start: sample the vendor clock, register the buffer callbacks, enable the session's kinds,
 *       and, for a vendor without external-correlation records, subscribe to API enter so each
 *       call's correlation is bound to the calling thread's External id;</li>
 *   <li>each completed buffer: resample the clock, publish the External-id bindings captured so far
 *       (before the records that need them), decode under the session's lock;</li>
 *   <li>stop: shut the push gate, disable the kinds, force-flush, drain the callbacks, unsubscribe.
 *       The library stays loaded: a vendor may keep interposed function pointers for the life of
 *       the process.</li>
 * </ul>
 */
public abstract class CuptiFamilyTracer implements DeviceTracer {
    /** The environment variable that points a tracer at a non-default library (as the seed's shims do). */
    public static final String LIBRARY_ENV = "FLAGOS_TRACER_LIBRARY";
    /** The system property that does the same, for a JVM that cannot set its environment. */
    public static final String LIBRARY_PROPERTY = "flagtrace.tracer.library";
    private static final int BUFFER_BYTES = Integer.getInteger("flagtrace.vendor.bufferMiB", 2) << 20;
    private static final int FLUSH_FORCED = 1;
    private static final int PAIRS_PER_TAKE = 4096;
    /**
     * The kind number of the records a capture saves API-enter bindings as: CUPTI's
     * EXTERNAL_CORRELATION. A vendor that binds at API enter has no such records of its own, so its
     * decoder reads this kind as flagtrace's (see {@link #publishBindings}).
     */
    public static final int BINDING_RECORD_KIND = 39;

    /**
     * What distinguishes one CUPTI-shaped vendor.
     *
     * @param name short name ({@code mupti})
     * @param prefix the entry points' prefix ({@code mupti} for {@code muptiActivityEnable})
     * @param defaultLibrary what the dynamic linker is asked for without an override
     * @param dumpVendor the {@code .fltrbuf} vendor id of its buffers
     * @param sessionKinds the activity kinds enabled at start and disabled at stop, in order
     * @param externalKind the external-correlation kind op ids are pushed as
     * @param apiEnterDomain the callback domain whose API enter binds External ids, or -1 when the
     *        vendor writes external-correlation records itself
     * @param vendorClockIsEpoch true when the vendor's timestamps are already UNIX-epoch ns
     */
    public record Profile(String name, String prefix, String defaultLibrary, int dumpVendor, int[] sessionKinds,
                          int externalKind, int apiEnterDomain, boolean vendorClockIsEpoch) {
    }

    private final Profile profile;
    private final String library;
    private final Handle handle;
    private final String unavailable;
    private final CompletedBuffers callbacks;
    private final CallGate pushes = new CallGate();
    private final ThreadLocal<LongPointer> popped = ThreadLocal.withInitial(() -> new LongPointer(1));
    private final AtomicLong pushFailures = new AtomicLong();
    private final AtomicLong popFailures = new AtomicLong();
    private final AtomicLong activationFailures = new AtomicLong();
    private final Sink sink;
    private boolean registered;
    private volatile Session session;
    private long droppedAtStart;
    private long dropped;
    private int[] enabledKinds = new int[0];

    /** One session's destination; buffers are decoded under its lock (the vendor may complete on several threads). */
    private final class Session implements CompletedBuffers.Receiver {
        final RecordSink sink;
        final DecodeStats stats;
        final BufferTap tap;
        final ClockedDecoder decoder;
        final VendorClock clock;
        final LongPointer pairs = new LongPointer(PAIRS_PER_TAKE * 2L);
        final Binding binding = new Binding();
        final ByteBuffer bindingFrame = ByteBuffer.allocate(PAIRS_PER_TAKE * ExternalCorrelationRecord.SIZE)
                .order(ByteOrder.LITTLE_ENDIAN);

        Session(RecordSink sink, DecodeStats stats, BufferTap tap, ClockedDecoder decoder, VendorClock clock) {
            this.sink = sink;
            this.stats = stats;
            this.tap = tap;
            this.decoder = decoder;
            this.clock = clock;
        }

        @Override
        public void completed(BytePointer buffer, long validSize) {
            DeviceClockMapping mapping = clock.resample();
            publishBindings(this);
            if (validSize <= 0) {
                return;
            }
            ByteBuffer bytes = CompletedBuffers.bytes(buffer, validSize);
            tap.buffer(profile.dumpVendor(), bytes);
            decoder.clock(mapping, clock.plausibleFromNs(), clock.plausibleToNs());
            decoder.decode(bytes, sink, stats);
        }

        @Override
        public DecodeStats stats() {
            return stats;
        }
    }

    /** A captured (correlation, External id) pair, reused for every publish. */
    private static final class Binding {
        long correlation;
        long externalId;
    }

    private static final com.lmax.disruptor.EventTranslatorOneArg<TraceRecord, Binding> BINDING = (slot, sequence, b) -> {
        slot.clear();
        slot.type = RecordType.CORRELATION_BINDING;
        slot.correlation(b.correlation);
        slot.externalId(b.externalId);
    };

    /**
     * Opens the library: {@code library} when given, else {@value #LIBRARY_PROPERTY}, else
     * {@value #LIBRARY_ENV}, else the profile's default name.
     */
    protected CuptiFamilyTracer(Profile profile, String library) {
        this.profile = profile;
        this.callbacks = new CompletedBuffers("a " + profile.name() + " buffer");
        this.library = library != null ? library : defaultLibrary(profile);
        Handle opened = null;
        String reason = "";
        Sink created = null;
        try {
            BytePointer error = new BytePointer(1024);
            opened = CuptiFamilyLibrary.ft_family_open(this.library, profile.prefix(), error, 1024);
            if (opened == null || opened.isNull()) {
                reason = profile.name() + " library " + this.library + " could not be loaded: "
                        + error.getString(StandardCharsets.UTF_8);
                opened = null;
            } else {
                created = new Sink();
            }
        } catch (LinkageError e) { // JavaCPP or the shim's JNI library missing
            reason = "flagtrace's native shim could not be loaded (" + e + ")";
        }
        this.handle = opened;
        this.unavailable = reason;
        this.sink = created;
    }

    private static String defaultLibrary(Profile profile) {
        String property = System.getProperty(LIBRARY_PROPERTY);
        if (property != null && !property.isBlank()) {
            return property;
        }
        String env = System.getenv(LIBRARY_ENV);
        return env != null && !env.isBlank() ? env : profile.defaultLibrary();
    }

    /**
     * Called at start before any kind is armed and before this session's callbacks are open: for a
     * vendor whose own calls must not overlap a buffer callback (MCPTI's name resolver). Nothing by
     * default.
     */
    protected void beforeArming(BufferTap tap) {
    }

    /**
     * Called at stop after the final forced flush, once every buffer callback has returned and the
     * session's callbacks are shut: {@code decoder} has seen every record of the session. Nothing
     * by default.
     */
    protected void afterFinalFlush(ClockedDecoder decoder, BufferTap tap) {
    }

    /** A fresh decoder for one session (or a replay) of this vendor. */
    protected abstract ClockedDecoder decoder(NameTable names, BufferTap tap);

    /** The library this tracer opened (or tried to). */
    public String library() {
        return library;
    }

    /** The profile this tracer was built with. */
    protected Profile profile() {
        return profile;
    }

    /** The opened library, for a vendor file's own calls (name resolution); null when unavailable. */
    protected Handle handle() {
        return handle;
    }

    @Override
    public String name() {
        return profile.name();
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
    public synchronized void start(RecordSink recordSink, NameTable names, DecodeStats stats, BufferTap tap) {
        if (!available() || session != null) {
            return;
        }
        VendorClock clock = VendorClock.start(this::vendorNow, profile.vendorClockIsEpoch());
        Session s = new Session(recordSink, stats, tap, decoder(names, tap), clock);
        beforeArming(tap);
        if (!registered) {
            int status = CuptiFamilyLibrary.ft_family_register(handle, BUFFER_BYTES, sink);
            if (status != 0) { // another subscriber owns the library, or it refused us
                activationFailed(profile.prefix() + "ActivityRegisterCallbacks returned " + status);
                return;
            }
            registered = true;
        }
        session = s;
        callbacks.open();
        long before = CuptiFamilyLibrary.ft_family_dropped(handle);
        droppedAtStart = Math.max(0, before);
        int enabled = 0;
        int[] enabledNow = new int[profile.sessionKinds().length];
        for (int kind : profile.sessionKinds()) {
            int status = enableKind(kind);
            if (status == 0) {
                enabledNow[enabled++] = kind;
            } else {
                Diagnostics.warn(profile.name(), profile.prefix() + "ActivityEnable(" + kind + ") returned " + status);
            }
        }
        enabledKinds = java.util.Arrays.copyOf(enabledNow, enabled);
        if (enabled == 0) {
            callbacks.closeAndDrain();
            session = null;
            activationFailed("no activity kind could be enabled");
            return;
        }
        if (profile.apiEnterDomain() >= 0) {
            int status = CuptiFamilyLibrary.ft_family_capture_api_enter(handle, profile.apiEnterDomain());
            if (status != 0) {
                Diagnostics.warn(profile.name(), "API-enter callbacks unavailable (status " + status
                        + "): device time is captured but not attributed to host ops");
            }
        }
        pushes.open();
        Diagnostics.trace(profile.name(), "session armed " + java.util.Arrays.toString(enabledKinds) + " from " + library);
    }

    @Override
    public synchronized void stop() {
        Session s = session;
        if (!available() || s == null) {
            return;
        }
        pushes.closeAndDrain();
        for (int kind : enabledKinds) { // only what was enabled: a kind the vendor refused stays untouched
            check(disableKind(kind), "ActivityDisable(" + kind + ")");
        }
        check(CuptiFamilyLibrary.ft_family_flush_all(handle, FLUSH_FORCED), "ActivityFlushAll");
        callbacks.closeAndDrain();
        synchronized (s) {
            publishBindings(s); // pairs captured after the last buffer still bind records parked in the join
            s.tap.clock(s.clock.resample());
        }
        afterFinalFlush(s.decoder, s.tap);
        if (profile.apiEnterDomain() >= 0) {
            CuptiFamilyLibrary.ft_family_unsubscribe(handle);
        }
        long after = CuptiFamilyLibrary.ft_family_dropped(handle);
        dropped = after < 0 ? 0 : Math.max(0, after - droppedAtStart);
        session = null;
        Diagnostics.trace(profile.name(), "session stopped; buffers outside sessions " + callbacks.outsideSession()
                + ", dropped by the vendor " + dropped + ", failed pushes " + pushFailures.get() + ", failed pops "
                + popFailures.get());
    }

    @Override
    public boolean pushCorrelation(ExternalId id) {
        if (!pushes.enter()) {
            return false;
        }
        try {
            if (CuptiFamilyLibrary.ft_family_push(handle, profile.externalKind(), id.value()) == 0) {
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
        // A real out-parameter: CANN's MSPTI refused a null one without unwinding (the seed's #425).
        if (CuptiFamilyLibrary.ft_family_pop(handle, profile.externalKind(), popped.get()) != 0) {
            popFailures.incrementAndGet();
        }
    }

    /** Pushes the vendor refused since the tracer was built. */
    public long pushFailures() {
        return pushFailures.get();
    }

    /** Pops the vendor refused since the tracer was built. */
    public long popFailures() {
        return popFailures.get();
    }

    @Override
    public int deviceCount() {
        return available() ? 1 : 0;
    }

    @Override
    public List<DeviceProperties> deviceProperties() {
        return List.of(); // no CUDA occupancy formula applies: those fields are left out
    }

    @Override
    public long droppedByVendor() {
        return dropped;
    }

    @Override
    public long timestampNs() {
        Session s = session;
        long vendor = vendorNow();
        if (s != null) {
            return s.clock.mapping().toEpoch(vendor);
        }
        return profile.vendorClockIsEpoch() ? vendor : RealtimeClock.nowNs();
    }

    private long vendorNow() {
        long now = available() ? CuptiFamilyLibrary.ft_family_timestamp(handle) : -1;
        return now < 0 ? RealtimeClock.nowNs() : now;
    }

    /**
     * Calls {@code int64_t symbol(int64_t)} in the vendor library: how a workload drives the library's
     * own entry points. -1 when the symbol is absent.
     */
    public long invoke(String symbol, long argument) {
        if (!available()) {
            throw new IllegalStateException(unavailable);
        }
        return CuptiFamilyLibrary.ft_family_invoke(handle, symbol, argument);
    }

    /**
     * Enables one of the profile's kinds; a vendor whose kinds exclude each other (PPU's KERNEL and
     * CONCURRENT_KERNEL) overrides this to fall back.
     */
    protected int enableKind(int kind) {
        return CuptiFamilyLibrary.ft_family_enable(handle, kind);
    }

    /**
     * Disables one of the profile's kinds that {@link #enableKind} enabled; a vendor that enabled
     * another kind in its place (PPU's KERNEL for CONCURRENT_KERNEL) disables that one.
     */
    protected int disableKind(int kind) {
        return CuptiFamilyLibrary.ft_family_disable(handle, kind);
    }

    private void activationFailed(String why) {
        activationFailures.incrementAndGet();
        System.err.println("flagtrace: " + profile.name() + " activity capture could not start (" + why
                + "); CPU-side profiling continues");
    }

    /** Sessions that started without device capture because the vendor refused activation. */
    public long activationFailures() {
        return activationFailures.get();
    }

    /** Warns when {@code status} is not success. */
    protected final void check(int status, String call) {
        if (status != 0) {
            Diagnostics.warn(profile.name(), profile.prefix() + call + " returned " + status);
        }
    }

    /**
     * Publishes the (correlation, External id) pairs captured at API enter since the last call,
     * before the records that need them. A capture has no other copy of them, so they are also
     * saved into it as one frame of external-correlation-shaped records (kind {@value
     * #BINDING_RECORD_KIND}, the profile's external kind) ahead of the buffer they precede: a
     * replay binds the same records the live session did.
     */
    private void publishBindings(Session s) {
        if (profile.apiEnterDomain() < 0) {
            return;
        }
        int n;
        do {
            n = CuptiFamilyLibrary.ft_family_take_pairs(handle, s.pairs, PAIRS_PER_TAKE);
            for (int i = 0; i < n; i++) {
                s.binding.correlation = s.pairs.get(2L * i);
                s.binding.externalId = s.pairs.get(2L * i + 1);
                ExternalCorrelationRecord.write(s.bindingFrame, i * ExternalCorrelationRecord.SIZE, BINDING_RECORD_KIND,
                        profile.externalKind(), s.binding.externalId, s.binding.correlation);
                s.sink.publish(BINDING, s.binding);
                s.stats.countBinding();
            }
            if (n > 0) {
                s.tap.buffer(profile.dumpVendor(), s.bindingFrame.duplicate().position(0)
                        .limit(n * ExternalCorrelationRecord.SIZE));
            }
        } while (n == PAIRS_PER_TAKE);
    }

    /** Receives completed buffers from the shim, on the vendor's thread. */
    private final class Sink extends CuptiFamilyLibrary.BufferSink {
        @Override
        public void call(BytePointer buffer, long validSize) {
            try {
                callbacks.deliver(session, buffer, validSize);
            } catch (Throwable e) { // never unwind into the vendor's native frame
                Diagnostics.warn(profile.name(), "a completion callback failed: " + e);
            }
        }
    }
}
