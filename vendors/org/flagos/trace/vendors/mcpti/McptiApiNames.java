package org.flagos.trace.vendors.mcpti;

import org.flagos.trace.model.ApiNameHandle;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.vendors.cupti.CuptiActivityKind;

/**
 * MCPTI's own callback-id namespace (not CUPTI's: the same number names another call). Names are
 * looked up under {@link ApiNameHandle#of}(activity kind, cbid) in a source that never calls the
 * vendor: live, the names {@link McptiTracer} resolved while no buffer callback could run; in a
 * replay, the capture's name table, where the live session saved them.
 */
public final class McptiApiNames implements ApiNames {
    private final KernelNames source;

    /** Names looked up in {@code source} by their {@link ApiNameHandle}. */
    public McptiApiNames(KernelNames source) {
        this.source = source;
    }

    /** The handle a name of {@code kind}'s {@code cbid} is saved under. */
    static long handle(EventKind kind, int cbid) {
        return ApiNameHandle.of(kind == EventKind.DRIVER ? CuptiActivityKind.DRIVER : CuptiActivityKind.RUNTIME, cbid);
    }

    @Override
    public String name(EventKind kind, int cbid) {
        return source.lookup(handle(kind, cbid));
    }

    @Override
    public String genericLabel(EventKind kind) {
        return kind == EventKind.DRIVER ? "mcptiDriver" : "mcptiRuntime";
    }

    /** MetaX is a PrivateUse1 accelerator in torch: its API records go under torch's PrivateUse1 categories. */
    @Override
    public String category(EventKind kind) {
        return kind == EventKind.DRIVER ? "privateuse1_driver" : "privateuse1_runtime";
    }
}
