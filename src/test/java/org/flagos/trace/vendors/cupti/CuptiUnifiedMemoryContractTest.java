package org.flagos.trace.vendors.cupti;

import java.util.Set;
import org.flagos.trace.contract.Capabilities;
import org.flagos.trace.contract.VendorContract;
import org.flagos.trace.testing.TraceJson;

/**
 * CUPTI's row of the vendor contract with unified memory declared: the real H200 capture of every kind
 * plus managed memory (captures/h200-managed/: migrations both ways, CPU and GPU page faults), with
 * the other kinds it holds as h200-kinds does.
 */
class CuptiUnifiedMemoryContractTest extends VendorContract {
    @Override
    protected Capabilities capabilities() {
        return Capabilities.cudaLike("cupti-unified-memory", "cuda_runtime");
    }

    @Override
    protected Set<String> declaredKinds() {
        return Set.of(SYNC, OVERHEAD, GRAPH_IDS, ANNOTATIONS, UNIFIED_MEMORY);
    }

    @Override
    protected boolean declaresDeviceMemory() {
        return true;
    }

    @Override
    protected Traced produceTrace() {
        TraceJson.Replayed r = TraceJson.replay("h200-managed/h200-managed");
        return new Traced(r.trace(), r.result().summary());
    }

    @Override
    protected String opWithDeviceWork() {
        return "kinds::fill";
    }
}
