package org.flagos.trace.vendors.cupti;

import java.util.Set;
import org.flagos.trace.contract.Capabilities;
import org.flagos.trace.contract.VendorContract;
import org.flagos.trace.testing.TraceJson;

/**
 * CUPTI's row of the vendor contract with peer copies declared: the real H200 capture h200-managed
 * (every kind of h200-kinds, managed memory, a copy between two contexts of one GPU; its
 * unified-memory counter records taken out) with {@link PeerCopyTest}'s synthetic MEMCPY2 records
 * (device 0 to 1, 1 to 0, a graph node) and their calls added. The vendor rows that do not declare
 * peer copies (every fake library, the other captures) must have none.
 */
class CuptiPeerCopyContractTest extends VendorContract {
    @Override
    protected Capabilities capabilities() {
        return Capabilities.cudaLike("cupti-peer", "cuda_runtime");
    }

    @Override
    protected Set<String> declaredKinds() {
        return Set.of(SYNC, OVERHEAD, GRAPH_IDS, ANNOTATIONS, PEER_COPIES);
    }

    @Override
    protected boolean declaresDeviceMemory() {
        return true;
    }

    @Override
    protected Traced produceTrace() {
        TraceJson.Replayed r = PeerCopyTest.inOrder();
        return new Traced(r.trace(), r.result().summary());
    }

    @Override
    protected String opWithDeviceWork() {
        return "kinds::peer_copy";
    }
}
