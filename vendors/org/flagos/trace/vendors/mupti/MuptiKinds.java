package org.flagos.trace.vendors.mupti;

/**
 * MUPTI's activity kinds, external-correlation kind and callback domains. The MUPTI headers are not
 * public: these are CUPTI's numbers ({@code CUpti_ActivityKind}, {@code
 * CUpti_ExternalCorrelationKind}, {@code CUpti_CallbackDomain}), assumed unchanged in MUPTI.
 */
final class MuptiKinds {
    static final int MEMCPY = 1;
    static final int MEMSET = 2;
    static final int KERNEL = 3;
    static final int DRIVER = 4;
    static final int RUNTIME = 5;
    static final int CONCURRENT_KERNEL = 10;
    static final int EXTERNAL_CORRELATION = 39;
    static final int EXTERNAL_CUSTOM0 = 3;
    static final int DOMAIN_DRIVER_API = 1;
    static final int DOMAIN_RUNTIME_API = 2;

    private MuptiKinds() {
    }
}
