package org.flagos.trace.vendors.mcpti;

/**
 * MCPTI's activity kinds and enum values flagtrace uses. MCPTI is CUDA-compatible: these are
 * assumed to equal CUPTI's {@code CUpti_ActivityKind} and {@code CUpti_ExternalCorrelationKind}
 * values (no public MCPTI header was available; see docs/vendors/mcpti.md).
 */
final class McptiKinds {
    static final int MEMCPY = 1;
    static final int MEMSET = 2;
    static final int KERNEL = 3;
    static final int DRIVER = 4;
    static final int RUNTIME = 5;
    static final int CONCURRENT_KERNEL = 10;
    static final int EXTERNAL_CORRELATION = 39;
    /** The external-correlation kind op ids are pushed as (CUSTOM0). */
    static final int CUSTOM0 = 3;
    /** The largest valid external-correlation kind (CUSTOM2); SIZE (6) and above are not kinds. */
    static final int LAST_EXTERNAL_KIND = 5;
    /** The {@code .fltrbuf} vendor id of MCPTI buffers. */
    static final int DUMP_VENDOR = 6;

    private McptiKinds() {
    }
}
