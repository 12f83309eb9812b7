package org.flagos.trace.vendors.cupti;

import org.flagos.trace.contract.Capabilities;
import org.flagos.trace.contract.VendorContract;
import org.flagos.trace.testing.TraceJson;

/** CUPTI's row of the vendor contract, on the capture flagtrace recorded live on the H200. */
class CuptiContractTest extends VendorContract {
    @Override
    protected Capabilities capabilities() {
        return Capabilities.cudaLike("cupti", "cuda_runtime");
    }

    @Override
    protected Traced produceTrace() {
        TraceJson.Replayed r = TraceJson.replay("h200-java-parity");
        return new Traced(r.trace(), r.result().summary());
    }

    @Override
    protected String opWithDeviceWork() {
        return "app::mm";
    }
}
