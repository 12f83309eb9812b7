package org.flagos.trace.vendors.topspti;

import org.flagos.trace.vendors.family.CuptiFamilyTracer;

/**
 * TOPSPTI's activity kinds and callback domains. The TopsRider SDK's headers are not public: these
 * are CUPTI's numbers ({@code CUpti_ActivityKind}, {@code CUpti_CallbackDomain}), assumed unchanged
 * in TOPSPTI. TOPSPTI has no external-correlation records; kind 39 in a TOPSPTI capture is
 * flagtrace's own frame of API-enter bindings ({@link CuptiFamilyTracer#BINDING_RECORD_KIND}).
 */
final class TopsptiKinds {
    static final int MEMCPY = 1;
    static final int MEMSET = 2;
    static final int KERNEL = 3;
    static final int DRIVER = 4;
    static final int RUNTIME = 5;
    static final int CONCURRENT_KERNEL = 10;
    static final int BINDINGS = CuptiFamilyTracer.BINDING_RECORD_KIND;
    /** The external kind flagtrace writes its binding records under (CUPTI's CUSTOM0). */
    static final int BINDINGS_EXTERNAL_KIND = 3;
    static final int DOMAIN_DRIVER_API = 1;
    static final int DOMAIN_RUNTIME_API = 2;

    private TopsptiKinds() {
    }
}
