package org.flagos.trace.vendors.cupti;

import java.util.Set;
import org.flagos.trace.contract.Capabilities;
import org.flagos.trace.contract.VendorContract;
import org.flagos.trace.testing.TraceJson;

/**
 * CUPTI's row of the vendor contract with NVTX ranges declared, and every other kind the real H200
 * capture of every kind holds (captures/h200-kinds/: synchronizations, overhead, a CUDA graph, device
 * memory, NVTX push/pop, start/end and domain ranges and a mark).
 */
class CuptiNvtxContractTest extends VendorContract {
    @Override
    protected Capabilities capabilities() {
        return Capabilities.cudaLike("cupti-nvtx", "cuda_runtime");
    }

    @Override
    protected Set<String> declaredKinds() {
        return Set.of(SYNC, OVERHEAD, GRAPH_IDS, ANNOTATIONS);
    }

    @Override
    protected boolean declaresDeviceMemory() {
        return true;
    }

    @Override
    protected Traced produceTrace() {
        TraceJson.Replayed r = TraceJson.replay("h200-kinds/h200-kinds");
        return new Traced(r.trace(), r.result().summary());
    }

    @Override
    protected String opWithDeviceWork() {
        return "kinds::fill";
    }
}
