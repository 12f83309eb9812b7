package org.flagos.trace.vendors.topspti;

import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.vendors.cupti.CuptiActivityKind;
import org.flagos.trace.vendors.cupti.CuptiBufferDecoder;
import org.flagos.trace.vendors.cupti.CuptiRecordLayout;
import org.flagos.trace.vendors.family.CuptiShapedVendor;

/**
 * TOPSPTI's buffers, read as CUPTI's {@code Kernel6}, {@code Memcpy4}, {@code Memset3} and {@code
 * API} records in the GCU's device clock (record versions assumed: the SDK headers are not public;
 * docs/vendors/topspti.md), plus the binding frames flagtrace saves beside them.
 */
public final class TopsptiDecoder {
    /** TOPSPTI's kind numbers and record versions (CUPTI's, assumed), and its API names' labels and domains. */
    public static final CuptiShapedVendor VENDOR = new CuptiShapedVendor("TOPSPTI", CuptiRecordLayout.CUPTI_11_1,
            "topsRuntime", "topsDriver", CuptiActivityKind.DOMAIN_RUNTIME_API, CuptiActivityKind.DOMAIN_DRIVER_API);

    /** A decoder for a replayed capture: names from its name table, times through its saved clock mapping. */
    public static CuptiBufferDecoder replay(KernelNames table, NameTable names, DeviceClockMapping clock) {
        return VENDOR.replay(table, names, clock);
    }

    private TopsptiDecoder() {
    }
}
