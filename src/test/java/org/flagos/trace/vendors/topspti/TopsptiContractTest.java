package org.flagos.trace.vendors.topspti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.nio.charset.StandardCharsets;
import org.bytedeco.javacpp.BytePointer;
import org.flagos.trace.contract.Capabilities;
import org.flagos.trace.contract.FakeCuptiShapedContract;
import org.flagos.trace.natives.CuptiFamilyLibrary;
import org.flagos.trace.natives.CuptiFamilyLibrary.Handle;
import org.flagos.trace.testing.FakeVendorLibrary;
import org.flagos.trace.vendors.family.CuptiFamilyTracer;
import org.junit.jupiter.api.Test;

/**
 * TOPSPTI's row of the vendor contract and the exact checks of the scripted workload, on the fake
 * TOPSPTI through {@link TopsptiTracer}. The fake has no push/pop and writes no external-correlation
 * record: every External id in the trace comes from the API-enter callback binding the call's
 * correlation to the shim's per-thread op stack.
 */
class TopsptiContractTest extends FakeCuptiShapedContract {
    @Override
    protected Capabilities capabilities() {
        return Capabilities.cudaLike("topspti", "privateuse1_runtime");
    }

    @Override
    protected String fake() {
        return "fake_topspti";
    }

    @Override
    protected String symbols() {
        return "Topspti";
    }

    @Override
    protected CuptiFamilyTracer tracer(String library) {
        return new TopsptiTracer(library);
    }

    @Override
    protected String apiName(long cbid) {
        return switch ((int) cbid) {
            case 211 -> "topsLaunchKernel";
            case 41 -> "topsMemcpyAsync";
            case 51 -> "topsMemsetAsync";
            default -> throw new AssertionError(cbid);
        };
    }

    @Test
    void attributionNeedsNoExternalCorrelationRecords() {
        trace(); // the exact External ids of every record are asserted by the contract's scripted checks
        BytePointer error = new BytePointer(512);
        Handle library = CuptiFamilyLibrary.ft_family_open(FakeVendorLibrary.build(fake()).toString(), "topspti", error, 512);
        assertNotNull(library, () -> error.getString(StandardCharsets.UTF_8));
        assertEquals(0, CuptiFamilyLibrary.ft_family_has(library, "ActivityPushExternalCorrelationId"), "no push symbol");
        assertEquals(0, CuptiFamilyLibrary.ft_family_has(library, "ActivityPopExternalCorrelationId"), "no pop symbol");
        assertEquals(0, call("Emitted", 39), "the fake wrote no external-correlation record");
        long calls = launched.size();
        long inOps = launched.values().stream().filter(l -> l.externalId() != null).count();
        assertEquals(2 * calls, call("Callbacks", 0), "an enter and an exit callback per call");
        assertEquals(inOps, liveAccounting.decode().bindings(), "one API-enter binding per call inside an op");
        assertEquals(inOps, replay.accounting().decode().bindings(), "the same bindings replayed from the capture");
    }
}
