package org.flagos.trace.vendors.roctracer;

import org.flagos.trace.model.ApiNameHandle;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.KernelNames;

/**
 * HIP API names by {@code hip_api_id_t}, as {@code roctracer_op_string(HIP_API, op, 0)} gives them.
 * The ids are not hard-coded: HIP numbered them differently before rocm-4.5 (the table was generated
 * at build time), so a name is resolved at run time through the library (live) or from the names a
 * live session saved under {@link ApiNameHandle#of}{@code (HIP_API, op)} (replay). HIP answers
 * {@code "unknown"} for an id it does not know: that keeps the generic label.
 *
 * <p>Category: {@code privateuse1_runtime}. A ROCm build of torch prints HIP calls as
 * {@code cuda_runtime} because it presents the device as CUDA; flagos reaches DCU through torch's
 * PrivateUse1 backend, and torch's profiler files a PrivateUse1 accelerator's runtime calls under
 * {@code privateuse1_runtime}, which is the trace flagtrace's users compare against.
 */
final class RoctracerApiNames implements ApiNames {
    static final String GENERIC = "hipApi";
    private static final String CATEGORY = "privateuse1_runtime";

    private final KernelNames resolver;

    RoctracerApiNames(KernelNames resolver) {
        this.resolver = resolver;
    }

    @Override
    public String name(EventKind kind, int cbid) {
        if (kind != EventKind.RUNTIME) {
            return null;
        }
        String name = resolver.lookup(ApiNameHandle.of(RoctracerRecord.DOMAIN_HIP_API, cbid));
        return name == null || name.isEmpty() || name.equals("unknown") ? null : name;
    }

    @Override
    public String genericLabel(EventKind kind) {
        return GENERIC;
    }

    @Override
    public String category(EventKind kind) {
        return kind == EventKind.RUNTIME ? CATEGORY : "privateuse1_driver";
    }
}
