package org.flagos.trace.vendors.topspti;

import org.flagos.trace.pipeline.ApiNames;
import org.flagos.trace.pipeline.DeviceClockMapping;
import org.flagos.trace.pipeline.KernelNames;
import org.flagos.trace.pipeline.NameTable;
import org.flagos.trace.vendors.family.CuptiShapedDecoder;
import org.flagos.trace.vendors.family.CuptiShapedLayout;
import org.flagos.trace.vendors.family.VendorApiNames;

/**
 * TOPSPTI's buffers, read as CUPTI's {@code Kernel6}, {@code Memcpy4}, {@code Memset3} and {@code
 * API} records in the GCU's device clock (record versions assumed: the SDK headers are not public;
 * docs/vendors/topspti.md), plus the binding frames flagtrace saves beside them.
 */
public final class TopsptiDecoder {
    /** TOPSPTI's kind numbers and record versions (CUPTI's, assumed). */
    public static final CuptiShapedLayout LAYOUT = new CuptiShapedLayout("TOPSPTI",
            new int[] {TopsptiKinds.KERNEL, TopsptiKinds.CONCURRENT_KERNEL}, TopsptiKinds.MEMCPY, TopsptiKinds.MEMSET,
            TopsptiKinds.RUNTIME, TopsptiKinds.DRIVER, TopsptiKinds.BINDINGS, TopsptiKinds.BINDINGS_EXTERNAL_KIND);

    /** A decoder for a live session (its clock is set per buffer by the tracer). */
    public static CuptiShapedDecoder live(KernelNames kernelNames, NameTable names, ApiNames apiNames) {
        return new CuptiShapedDecoder(LAYOUT, kernelNames, names, apiNames);
    }

    /** A decoder for a replayed capture: names from its name table, times through its saved clock mapping. */
    public static CuptiShapedDecoder replay(KernelNames table, NameTable names, DeviceClockMapping clock) {
        CuptiShapedDecoder decoder = new CuptiShapedDecoder(LAYOUT, table, names, apiNames(VendorApiNames.fromTable(table)));
        decoder.replayClock(clock);
        return decoder;
    }

    static VendorApiNames apiNames(VendorApiNames.Source source) {
        return new VendorApiNames("topsRuntime", "topsDriver", TopsptiKinds.DOMAIN_RUNTIME_API,
                TopsptiKinds.DOMAIN_DRIVER_API, source);
    }

    private TopsptiDecoder() {
    }
}
