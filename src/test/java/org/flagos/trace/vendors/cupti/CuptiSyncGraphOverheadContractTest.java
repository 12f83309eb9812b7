package org.flagos.trace.vendors.cupti;

import java.util.Set;
import org.flagos.trace.contract.Capabilities;
import org.flagos.trace.contract.VendorContract;
import org.flagos.trace.testing.TraceJson;

/**
 * CUPTI's row of the vendor contract with the kinds beyond the seven declared: the H200 capture
 * h200-app with synchronizations, overhead records and a graph launch added at CUPTI 13.0's offsets
 * ({@link SyncGraphOverheadTest}'s buffers).
 */
class CuptiSyncGraphOverheadContractTest extends VendorContract {
    @Override
    protected Capabilities capabilities() {
        return Capabilities.cudaLike("cupti-sync-graph-overhead", "cuda_runtime");
    }

    @Override
    protected Set<String> declaredKinds() {
        return Set.of(SYNC, OVERHEAD, GRAPH_IDS);
    }

    @Override
    protected Traced produceTrace() {
        TraceJson.Replayed r = SyncGraphOverheadTest.inOrder();
        return new Traced(r.trace(), r.result().summary());
    }

    @Override
    protected String opWithDeviceWork() {
        return "app::mm";
    }
}
