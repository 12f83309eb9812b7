package org.flagos.trace.contract;

import java.util.Set;

/**
 * What one vendor's tracer declares it captures: the row that gates each of the seven contract
 * assertions. A capability is declared absent only with a reason the vendor's docs give (Ascend's
 * API record has no callback id; its kernel record no grid or block), never to make a test pass.
 *
 * @param runtimeCategory the trace category of its API records ({@code cuda_runtime} or
 *        {@code privateuse1_runtime}: equivalent for every check)
 * @param kernelFields the kernel args torch writes that this vendor reports (a subset of torch's 13)
 */
public record Capabilities(
        String vendor,
        boolean kernels,
        boolean memcpy,
        boolean memset,
        boolean runtime,
        boolean flows,
        boolean linkage,
        boolean cbid,
        String runtimeCategory,
        Set<String> kernelFields,
        Set<String> transferFields) {

    /** torch's 13 kernel fields. */
    public static final Set<String> TORCH_KERNEL_FIELDS = Set.of("External id", "queued", "device", "context", "stream",
            "correlation", "registers per thread", "shared memory", "blocks per SM", "warps per SM", "grid", "block",
            "est. achieved occupancy %");
    /** torch's copy and memset fields. */
    public static final Set<String> TORCH_TRANSFER_FIELDS = Set.of("External id", "bytes", "context", "correlation",
            "device", "memory bandwidth (GB/s)", "stream");

    /** Everything CUDA has, the row a CUPTI-shaped vendor starts from. */
    public static Capabilities cudaLike(String vendor, String runtimeCategory) {
        return new Capabilities(vendor, true, true, true, true, true, true, true, runtimeCategory,
                TORCH_KERNEL_FIELDS, TORCH_TRANSFER_FIELDS);
    }

    public Capabilities withoutMemset() {
        return new Capabilities(vendor, kernels, memcpy, false, runtime, flows, linkage, cbid, runtimeCategory,
                kernelFields, transferFields);
    }

    public Capabilities withoutCbid() {
        return new Capabilities(vendor, kernels, memcpy, memset, runtime, flows, linkage, false, runtimeCategory,
                kernelFields, transferFields);
    }

    public Capabilities withKernelFields(Set<String> fields) {
        return new Capabilities(vendor, kernels, memcpy, memset, runtime, flows, linkage, cbid, runtimeCategory,
                fields, transferFields);
    }

    public Capabilities withTransferFields(Set<String> fields) {
        return new Capabilities(vendor, kernels, memcpy, memset, runtime, flows, linkage, cbid, runtimeCategory,
                kernelFields, fields);
    }
}
