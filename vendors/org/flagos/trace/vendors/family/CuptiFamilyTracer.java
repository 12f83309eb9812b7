package org.flagos.trace.vendors.family;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.LongPointer;
import org.flagos.trace.natives.CuptiFamilyLibrary;
import org.flagos.trace.natives.CuptiFamilyLibrary.Handle;
import org.flagos.trace.model.BufferTap;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.Diagnostics;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RealtimeClock;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.vendors.activity.ActivityTracer;
import org.flagos.trace.vendors.activity.BufferRoutes;
import org.flagos.trace.vendors.activity.VendorLibrary;
import org.flagos.trace.vendors.cupti.CuptiExternalCorrelationDecoder;

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
public abstract class CuptiFamilyTracer extends ActivityTracer<CuptiFamilyTracer.FamilySession> {
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
    private final List<String> candidates;
    private VendorLibrary<Handle> library;
    private Handle handle;
    private boolean registered;
    private long droppedAtStart;
    private long dropped;
    private int[] enabledKinds = new int[0];

    /** One session: its clock, resampled per buffer, and the API-enter bindings published before each buffer. */
    protected final class FamilySession extends Session {
        final ClockedDecoder decoder;
        final VendorClock clock;
        final LongPointer pairs = new LongPointer(PAIRS_PER_TAKE * 2L);
        final Binding binding = new Binding();
        final ByteBuffer bindingFrame = ByteBuffer.allocate(PAIRS_PER_TAKE * CuptiExternalCorrelationDecoder.SIZE)
                .order(ByteOrder.LITTLE_ENDIAN);
        private DeviceClockMapping mapping;

        FamilySession(RecordSink sink, DecodeStats stats, BufferTap tap, ClockedDecoder decoder, VendorClock clock) {
            super(profile.dumpVendor(), decoder, sink, stats, tap);
            this.decoder = decoder;
            this.clock = clock;
        }

        @Override
        protected void beforeBuffer() {
            mapping = clock.resample();
            publishBindings(this);
        }

        @Override
        protected void beforeDecode() {
            decoder.clock(mapping, clock.plausibleFromNs(), clock.plausibleToNs());
        }
    }

    /** A captured (correlation, External id) pair, reused for every publish. */
    private static final class Binding {
        long correlation;
        long externalId;
    }

    private static final com.lmax.disruptor.EventTranslatorOneArg<TraceRecord, Binding> BINDING =
            (slot, sequence, b) -> slot.binding(b.correlation, b.externalId);

    /**
     * Opens the library: {@code library} when given, else {@value #LIBRARY_PROPERTY}, else
     * {@value #LIBRARY_ENV}, else the profile's default name.
     */
    protected CuptiFamilyTracer(Profile profile, String library) {
        super(profile.name(), "a " + profile.name() + " buffer", false);
        this.profile = profile;
        this.candidates = VendorLibrary.candidates(library, List.of(profile.defaultLibrary()));
        available(); // opened now: a vendor may want its library before the first session
    }

    @Override
    protected final String load() {
        library = VendorLibrary.open(profile.name(), candidates,
                (path, error, length) -> CuptiFamilyLibrary.ft_family_open(path, profile.prefix(), error, length));
        handle = library.handle();
        if (handle == null) {
            return library.failure();
        }
        ROUTES.route(handle.address(), this);
        return null;
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
        available();
        return library.path();
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
    protected FamilySession newSession(RecordSink recordSink, NameTable names, DecodeStats stats, BufferTap tap) {
        VendorClock clock = VendorClock.start(this::vendorNow, profile.vendorClockIsEpoch());
        FamilySession s = new FamilySession(recordSink, stats, tap, decoder(names, tap), clock);
        beforeArming(tap);
        if (registered) { // another library's tracer may have registered since: its sink would get our buffers
            int status = CuptiFamilyLibrary.ft_family_activate(handle);
            if (status != 0) {
                activationFailed("the shim has no buffer sink for " + library.path() + " (status " + status + ")");
                return null;
            }
            return s;
        }
        int status = CuptiFamilyLibrary.ft_family_register(handle, BUFFER_BYTES, Shared.SINK);
        if (status == CuptiFamilyLibrary.NO_SINK) {
            activationFailed("flagtrace's buffer callback is a null function pointer (JavaCPP's callback slots are taken)");
            return null;
        }
        if (status != 0) { // another subscriber owns the library, or it refused us
            activationFailed(profile.prefix() + "ActivityRegisterCallbacks returned " + status);
            return null;
        }
        registered = true;
        return s;
    }

    @Override
    protected boolean arm(FamilySession s) {
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
            activationFailed("no activity kind could be enabled");
            return false;
        }
        if (profile.apiEnterDomain() >= 0) {
            int status = CuptiFamilyLibrary.ft_family_capture_api_enter(handle, profile.apiEnterDomain());
            if (status != 0) {
                Diagnostics.warn(profile.name(), "API-enter callbacks unavailable (status " + status
                        + "): device time is captured but not attributed to host ops");
            }
        }
        Diagnostics.trace(profile.name(), "session armed " + java.util.Arrays.toString(enabledKinds) + " from "
                + library.path());
        return true;
    }

    @Override
    protected void disarm(FamilySession s) {
        for (int kind : enabledKinds) { // only what was enabled: a kind the vendor refused stays untouched
            checkCall(disableKind(kind), "ActivityDisable(" + kind + ")");
        }
        checkCall(CuptiFamilyLibrary.ft_family_flush_all(handle, FLUSH_FORCED), "ActivityFlushAll");
    }

    /**
     * The vendor's default flush (flag 0, complete buffers only), then the API-enter pairs captured since
     * the last buffer: a flush that hands over no buffer must still publish them.
     */
    @Override
    protected boolean flushCompleted(FamilySession s) {
        if (CuptiFamilyLibrary.ft_family_flush_all(handle, 0) != 0) {
            return false;
        }
        synchronized (s) {
            publishBindings(s);
        }
        return true;
    }

    @Override
    protected void afterDrain(FamilySession s) {
        synchronized (s) {
            publishBindings(s); // pairs captured after the last buffer still bind records parked in the join
            s.tap().clock(s.clock.resample());
        }
        afterFinalFlush(s.decoder, s.tap());
        if (profile.apiEnterDomain() >= 0) {
            CuptiFamilyLibrary.ft_family_unsubscribe(handle);
        }
        long after = CuptiFamilyLibrary.ft_family_dropped(handle);
        dropped = after < 0 ? 0 : Math.max(0, after - droppedAtStart);
    }

    @Override
    protected String stopDetail() {
        return ", dropped by the vendor " + dropped;
    }

    @Override
    protected final int push(long externalId) {
        return CuptiFamilyLibrary.ft_family_push(handle, profile.externalKind(), externalId);
    }

    @Override
    protected final int pop(LongPointer last) {
        return CuptiFamilyLibrary.ft_family_pop(handle, profile.externalKind(), last);
    }

    @Override
    public long droppedByVendor() {
        return dropped;
    }

    @Override
    public long timestampNs() {
        FamilySession s = session();
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

    @Override
    protected long invokeSymbol(String symbol, long argument) {
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

    /** Warns when {@code status} of the vendor's {@code call} (without its prefix) is not success. */
    protected final void checkCall(int status, String call) {
        check(status, profile.prefix() + call);
    }

    /**
     * Publishes the (correlation, External id) pairs captured at API enter since the last call,
     * before the records that need them. A capture has no other copy of them, so they are also
     * saved into it as one frame of external-correlation-shaped records (kind {@value
     * #BINDING_RECORD_KIND}, the profile's external kind) ahead of the buffer they precede: a
     * replay binds the same records the live session did.
     */
    private void publishBindings(FamilySession s) {
        if (profile.apiEnterDomain() < 0) {
            return;
        }
        int n;
        do {
            n = CuptiFamilyLibrary.ft_family_take_pairs(handle, s.pairs, PAIRS_PER_TAKE);
            for (int i = 0; i < n; i++) {
                s.binding.correlation = s.pairs.get(2L * i);
                s.binding.externalId = s.pairs.get(2L * i + 1);
                CuptiExternalCorrelationDecoder.write(s.bindingFrame, i * CuptiExternalCorrelationDecoder.SIZE, BINDING_RECORD_KIND,
                        profile.externalKind(), s.binding.externalId, s.binding.correlation);
                s.sink().publish(BINDING, s.binding);
                s.stats().countBinding();
            }
            if (n > 0) {
                s.tap().buffer(profile.dumpVendor(), s.bindingFrame.duplicate().position(0)
                        .limit(n * CuptiExternalCorrelationDecoder.SIZE));
            }
        } while (n == PAIRS_PER_TAKE);
    }

    /** Which tracer a completed buffer goes to, by the shim's library that completed it. */
    private static final BufferRoutes ROUTES = new BufferRoutes();

    /** The one sink of every CUPTI-family tracer in the process (see {@link BufferRoutes}); made on first use. */
    private static final class Shared {
        static final Sink SINK = new Sink();
    }

    /** Receives completed buffers from the shim, on the vendor's thread. */
    private static final class Sink extends CuptiFamilyLibrary.BufferSink {
        @Override
        public void call(long library, BytePointer buffer, long validSize) {
            ROUTES.deliver(library, buffer, validSize);
        }
    }

    /** Buffers the shim completed for a CUPTI-family library no live tracer owns (counted, dropped). */
    public static long buffersUnrouted() {
        return ROUTES.unrouted();
    }
}
