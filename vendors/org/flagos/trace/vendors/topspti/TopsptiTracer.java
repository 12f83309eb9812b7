package org.flagos.trace.vendors.topspti;

import org.flagos.trace.vendors.cupti.CuptiActivityKind;
import org.flagos.trace.vendors.family.CuptiFamilyTracer;
import org.flagos.trace.vendors.family.CuptiShapedTracer;

/**
 * Enflame GCU's TOPSPTI ({@code libtopspti.so}): kernels, copies, memsets, runtime and driver calls
 * in the GCU's device clock mapped to epoch ns. TOPSPTI has no external-correlation records and no
 * push/pop: the shim keeps each thread's op-id stack, and a runtime-domain API-enter callback binds
 * each call's correlation id to the calling thread's innermost op; the tracer publishes those
 * bindings before each buffer's records (and saves them into a capture). API names come from {@code
 * topsptiGetCallbackName} (else {@code ActivityGetApiName}) through the shim.
 */
public final class TopsptiTracer extends CuptiShapedTracer {
    /** The {@code .fltrbuf} vendor id of TOPSPTI buffers. */
    public static final int DUMP_VENDOR = 5;
    /**
     * TOPSPTI's profile: CUPTI's kind numbers (assumed), bindings at runtime API enter, its own clock.
     * TOPSPTI has no external-correlation records: kind 39 in a TOPSPTI capture is flagtrace's own
     * frame of API-enter bindings ({@link CuptiFamilyTracer#BINDING_RECORD_KIND}), written under
     * CUPTI's CUSTOM0 external kind.
     */
    public static final Profile PROFILE = new Profile("topspti", "topspti", "libtopspti.so", DUMP_VENDOR,
            new int[] {CuptiActivityKind.CONCURRENT_KERNEL, CuptiActivityKind.MEMCPY, CuptiActivityKind.MEMSET,
                CuptiActivityKind.RUNTIME, CuptiActivityKind.DRIVER},
            CuptiActivityKind.EXTERNAL_CUSTOM0, CuptiActivityKind.DOMAIN_RUNTIME_API, false);

    /** The library named by the override property or variable, else {@code libtopspti.so}. */
    public TopsptiTracer() {
        this(null);
    }

    /** The library at {@code library} (null: the default lookup). */
    public TopsptiTracer(String library) {
        super(PROFILE, TopsptiDecoder.VENDOR, library);
    }
}
