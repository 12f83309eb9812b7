package org.flagos.trace.vendors.mupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.flagos.trace.contract.Capabilities;
import org.flagos.trace.contract.FakeCuptiShapedContract;
import org.flagos.trace.vendors.family.CuptiFamilyTracer;
import org.junit.jupiter.api.Test;

/**
 * MUPTI's row of the vendor contract and the exact checks of the scripted workload, on the fake
 * MUPTI through {@link MuptiTracer}: its external-correlation records come from its own per-thread
 * push/pop stack, whose pop refuses a null out-parameter.
 */
class MuptiContractTest extends FakeCuptiShapedContract {
    @Override
    protected Capabilities capabilities() {
        return Capabilities.cudaLike("mupti", "privateuse1_runtime");
    }

    @Override
    protected String fake() {
        return "fake_mupti";
    }

    @Override
    protected String symbols() {
        return "Mupti";
    }

    @Override
    protected CuptiFamilyTracer tracer(String library) {
        return new MuptiTracer(library);
    }

    @Override
    protected String apiName(long cbid) {
        return switch ((int) cbid) {
            case 211 -> "musaLaunchKernel";
            case 41 -> "musaMemcpyAsync";
            case 51 -> "musaMemsetAsync";
            default -> throw new AssertionError(cbid);
        };
    }

    @Test
    void bindingsAreMuptisOwnExternalCorrelationRecordsAndItsStackUnwound() {
        trace();
        long inOps = launched.values().stream().filter(l -> l.externalId() != null).count();
        assertEquals(inOps, call("Emitted", 39), "one external-correlation record per call inside an op");
        assertEquals(inOps, liveAccounting.decode().bindings());
        assertEquals(0, call("StackDepth", 0), "every push popped (this thread)");
        assertTrue(call("PopNull", 3) != 0, "the fake refuses a null out-parameter, as MUPTI is assumed to");
    }
}
