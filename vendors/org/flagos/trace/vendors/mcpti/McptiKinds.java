package org.flagos.trace.vendors.mcpti;

import org.flagos.trace.vendors.cupti.CuptiActivityKind;

/**
 * MCPTI's own numbers beside its kinds. MCPTI is CUDA-compatible: its activity kinds and
 * external-correlation kinds are assumed to equal CUPTI's ({@link CuptiActivityKind}; no public
 * MCPTI header was available; see docs/vendors/mcpti.md).
 */
final class McptiKinds {
    /** The largest valid external-correlation kind (CUSTOM2); SIZE (6) and above are not kinds. */
    static final int LAST_EXTERNAL_KIND = 5;
    /** The {@code .fltrbuf} vendor id of MCPTI buffers. */
    static final int DUMP_VENDOR = 6;

    private McptiKinds() {
    }
}
