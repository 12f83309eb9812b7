package org.flagos.trace.vendors.family;

import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.vendors.cupti.CuptiBufferDecoder;
import org.flagos.trace.vendors.cupti.CuptiRecordLayout;

/**
 * A vendor whose buffers are CUPTI-shaped records in its own device clock and whose API names come
 * from its own callback-name call (MUPTI, TOPSPTI): the row of CUPTI's layout table its records
 * follow, and what its API names are labelled with. Builds that vendor's decoders, live and
 * replayed, and its API names.
 *
 * @param vendor the vendor's name in problems reported ({@code MUPTI})
 * @param layout the record versions its buffers hold
 * @param genericRuntime the label of a runtime call the vendor does not name
 * @param genericDriver the label of a driver call the vendor does not name
 * @param runtimeDomain the callback domain of runtime calls
 * @param driverDomain the callback domain of driver calls
 */
public record CuptiShapedVendor(String vendor, CuptiRecordLayout layout, String genericRuntime, String genericDriver,
                                int runtimeDomain, int driverDomain) {
    /** A decoder for a live session (its clock is set per buffer by the tracer). */
    public CuptiBufferDecoder live(KernelNames kernelNames, NameTable names, ApiNames apiNames) {
        return CuptiBufferDecoder.vendorClock(vendor, layout, kernelNames, names, apiNames);
    }

    /** A decoder for a replayed capture: names from its name table, times through its saved clock mapping. */
    public CuptiBufferDecoder replay(KernelNames table, NameTable names, DeviceClockMapping clock) {
        CuptiBufferDecoder decoder = live(table, names, apiNames(VendorApiNames.fromTable(table)));
        decoder.replayClock(clock);
        return decoder;
    }

    /** The vendor's API names, resolved through {@code source}. */
    public VendorApiNames apiNames(VendorApiNames.Source source) {
        return new VendorApiNames(genericRuntime, genericDriver, runtimeDomain, driverDomain, source);
    }
}
