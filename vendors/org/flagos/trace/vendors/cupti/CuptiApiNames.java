package org.flagos.trace.vendors.cupti;

import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.EventKind;

/** CUPTI 13.0's runtime and driver callback ids, from the generated tables. */
final class CuptiApiNames implements ApiNames {
    static final CuptiApiNames INSTANCE = new CuptiApiNames();

    @Override
    public String name(EventKind kind, int cbid) {
        String[] names = kind == EventKind.DRIVER ? CuptiDriverCbidNames.NAMES : CuptiRuntimeCbidNames.NAMES;
        return cbid > 0 && cbid < names.length ? names[cbid] : null;
    }

    @Override
    public String genericLabel(EventKind kind) {
        return kind == EventKind.DRIVER ? "cudaDriver" : "cudaRuntime";
    }
}
