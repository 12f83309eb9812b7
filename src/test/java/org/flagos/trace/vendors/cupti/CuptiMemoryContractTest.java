package org.flagos.trace.vendors.cupti;

import org.flagos.trace.contract.Capabilities;
import org.flagos.trace.contract.VendorContract;
import org.flagos.trace.testing.TraceJson;

/**
 * CUPTI's row of the vendor contract with device memory declared: the live H200 parity capture with
 * a MEMORY2 record beside each of its {@code cudaMalloc} and {@code cudaFree} calls
 * ({@link MemoryCapture}), until a live capture with MEMORY2 armed is bundled.
 */
class CuptiMemoryContractTest extends VendorContract {
    @Override
    protected Capabilities capabilities() {
        return Capabilities.cudaLike("cupti-memory", "cuda_runtime");
    }

    @Override
    protected boolean declaresDeviceMemory() {
        return true;
    }

    @Override
    protected Traced produceTrace() {
        TraceJson.Replayed r = TraceJson.replay("h200-java-parity",
                MemoryCapture.injected(MemoryCapture.Placement.BEFORE_CALL));
        return new Traced(r.trace(), r.result().summary());
    }

    @Override
    protected String opWithDeviceWork() {
        return "app::mm";
    }
}
