package org.flagos.trace.pipeline;

/**
 * The properties of one accelerator that the trace's {@code deviceProperties} block carries and that
 * kernel occupancy figures are computed from. Field names follow the torch/kineto trace schema.
 */
public record DeviceProperties(
        int id,
        String name,
        long totalGlobalMem,
        int computeMajor,
        int computeMinor,
        int maxThreadsPerBlock,
        int maxThreadsPerMultiprocessor,
        int regsPerBlock,
        int warpSize,
        long sharedMemPerBlock,
        int numSms,
        int regsPerMultiprocessor,
        long sharedMemPerBlockOptin,
        long sharedMemPerMultiprocessor) {
}
