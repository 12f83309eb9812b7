package org.flagos.trace.report;

import java.util.List;
import java.util.Locale;

/**
 * What a piece of device work is to the cross-rank summary: communication, a memory copy or set, or
 * computation (every other kernel). Communication is told by the kernel's name alone, as NCCL and
 * its kin (RCCL, HCCL, MCCL) name their kernels: a name starting with {@code nccl} (any case), or
 * holding one of {@link #COLLECTIVE_WORDS} (any case), such as
 * {@code ncclDevKernel_AllReduce_Sum_f32_RING_LL} or {@code cross_device_reduce_AllGather}.
 */
public enum DeviceWorkKind {
    /** A kernel that is not communication. */
    COMPUTATION,
    /** A collective or point-to-point transfer kernel. */
    COMMUNICATION,
    /** A memory copy or set ({@code gpu_memcpy}, {@code gpu_memset}, 2021's {@code Memcpy}, {@code Memset}). */
    MEMORY;

    /** The words that make a kernel communication, wherever they stand in its name (compared lower-case). */
    public static final List<String> COLLECTIVE_WORDS = List.of("allreduce", "allgather", "reducescatter", "broadcast",
            "sendrecv", "alltoall");

    /** The kind of a device event of category {@code cat} named {@code name}; null when it is not device work. */
    public static DeviceWorkKind of(String cat, String name) {
        if (EventClass.of(cat) != EventClass.DEVICE) {
            return null;
        }
        if (!cat.equalsIgnoreCase("kernel")) {
            return MEMORY;
        }
        return isCommunication(name) ? COMMUNICATION : COMPUTATION;
    }

    /** Whether a kernel named {@code name} is communication (see the class comment). */
    public static boolean isCommunication(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        if (n.startsWith("nccl")) {
            return true;
        }
        for (String w : COLLECTIVE_WORDS) {
            if (n.contains(w)) {
                return true;
            }
        }
        return false;
    }
}
