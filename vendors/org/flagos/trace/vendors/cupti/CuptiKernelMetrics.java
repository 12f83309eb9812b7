package org.flagos.trace.vendors.cupti;

import java.util.List;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.TraceRecord;

/**
 * Fills a kernel record's blocks per SM, warps per SM and estimated achieved occupancy the way
 * kineto computes them (including its -99 when the occupancy calculator fails). Without the device's properties the three stay unset and the trace omits
 * them rather than inventing figures.
 */
final class CuptiKernelMetrics {
    private final DeviceProperties[] byDevice;

    CuptiKernelMetrics(List<DeviceProperties> devices) {
        int max = -1;
        for (DeviceProperties p : devices) {
            max = Math.max(max, p.id());
        }
        byDevice = new DeviceProperties[max + 1];
        for (DeviceProperties p : devices) {
            byDevice[p.id()] = p;
        }
    }

    void fill(TraceRecord k) {
        if (k.device < 0 || k.device >= byDevice.length || byDevice[k.device] == null) {
            return;
        }
        DeviceProperties p = byDevice[k.device];
        int blockSize = k.blockX * k.blockY * k.blockZ;
        long blocks = (long) k.gridX * k.gridY * k.gridZ;
        k.blocksPerSm = CudaOccupancy.blocksPerSm(p, blocks);
        k.warpsPerSm = CudaOccupancy.warpsPerSm(p, k.blocksPerSm, blockSize);
        k.occupancyPercent = CudaOccupancy.occupancyPercentArg(p, k.registersPerThread, k.staticSharedMemory,
                k.dynamicSharedMemory, blockSize, k.blocksPerSm);
    }
}
