package org.flagos.trace.vendors.mupti;

import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.vendors.cupti.CuptiActivityKind;
import org.flagos.trace.vendors.cupti.CuptiBufferDecoder;
import org.flagos.trace.vendors.cupti.CuptiRecordLayout;
import org.flagos.trace.vendors.family.CuptiShapedVendor;

/**
 * MUPTI's buffers: {@code MUpti_ActivityKernel6}, {@code Memcpy4}, {@code Memset3}, {@code API} and
 * {@code ExternalCorrelation}, in MUSA's device clock. MUPTI's headers are not public: each record
 * is read as the CUPTI record of the same name and version, and the kind numbers are CUPTI's
 * (assumed; docs/vendors/mupti.md says what to check against the SDK).
 */
public final class MuptiDecoder {
    /** MUPTI's kind numbers and record versions (CUPTI's, assumed), and its API names' labels and domains. */
    public static final CuptiShapedVendor VENDOR = new CuptiShapedVendor("MUPTI", CuptiRecordLayout.CUPTI_11_1,
            "musaRuntime", "musaDriver", CuptiActivityKind.DOMAIN_RUNTIME_API, CuptiActivityKind.DOMAIN_DRIVER_API);

    /** A decoder for a replayed capture: names from its name table, times through its saved clock mapping. */
    public static CuptiBufferDecoder replay(KernelNames table, NameTable names, DeviceClockMapping clock) {
        return VENDOR.replay(table, names, clock);
    }

    private MuptiDecoder() {
    }
}
