package org.flagos.trace.report;

import org.flagos.trace.sql.CollectiveKernels;

/**
 * What a piece of device work is to the cross-rank summary: communication, a memory copy or set, or
 * computation (every other kernel). Communication is told by the kernel's name alone, by the one rule
 * of {@link CollectiveKernels}: a collective library's kernel ({@code ncclDevKernel_AllReduce_Sum_f32_RING_LL},
 * {@code ncclKernel_SendRecv}, an HCCL, MCCL or ECCL kernel), never a collective's word elsewhere in a
 * name (PyTorch's {@code type_specialized_broadcast_kernel_launcher} is computation).
 */
public enum DeviceWorkKind {
    /** A kernel that is not communication. */
    COMPUTATION,
    /** A collective or point-to-point transfer kernel. */
    COMMUNICATION,
    /** A memory copy or set ({@code gpu_memcpy}, {@code gpu_memset}, 2021's {@code Memcpy}, {@code Memset}). */
    MEMORY;

    /** The kind of a device event of category {@code cat} named {@code name}; null when it is not device work. */
    public static DeviceWorkKind of(String cat, String name) {
        if (EventClass.of(cat) != EventClass.DEVICE) {
            return null;
        }
        if (!cat.equalsIgnoreCase("kernel")) {
            return MEMORY;
        }
        return CollectiveKernels.isCommunication(name) ? COMMUNICATION : COMPUTATION;
    }
}
