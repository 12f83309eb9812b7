package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.flagos.trace.encoders.FixedDecimal;
import org.flagos.trace.ingest.DevicePropertiesFile;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;

/**
 * A kernel's per-SM figures as kineto printed them in the reference torch H200 trace
 * ({@code occupancy/h200_kernel_args.txt}), from the H200's properties as flagtrace saved them beside
 * a live capture; and the rule of which kernels get figures: only one whose device's properties are
 * known (a device id past the list, negative or missing from a sparse list keeps them unset).
 */
class CuptiKernelMetricsTest {
    private static final DeviceProperties H200 =
            DevicePropertiesFile.read(Captures.dir().resolve("h200-java-parity.devices.json")).get(0);

    private static TraceRecord kernel(int device, int grid, int block, int registers, int staticShared) {
        TraceRecord k = new TraceRecord();
        k.device = device;
        k.gridX = grid;
        k.gridY = 1;
        k.gridZ = 1;
        k.blockX = block;
        k.blockY = 1;
        k.blockZ = 1;
        k.registersPerThread = registers;
        k.staticSharedMemory = staticShared;
        return k;
    }

    @Test
    void figuresAreKinetosForTheReferenceH200Kernels() {
        CuptiKernelMetrics metrics = new CuptiKernelMetrics(List.of(H200));
        // "registers per thread": 44, "shared memory": 0, "blocks per SM": 1.939394, "warps per SM": 15.515152,
        // "grid": [256, 1, 1], "block": [256, 1, 1], "est. achieved occupancy %": 24
        TraceRecord k = kernel(0, 256, 256, 44, 0);
        metrics.fill(k);
        assertEquals("1.939394", FixedDecimal.render(k.blocksPerSm));
        assertEquals("15.515152", FixedDecimal.render(k.warpsPerSm));
        assertEquals(24, k.occupancyPercent);
        // the cub radix sort pass: 80 registers, 45056 B shared memory, grid 13, block 384: 0.098485, 1.181818, 2
        TraceRecord cub = kernel(0, 13, 384, 80, 45056);
        metrics.fill(cub);
        assertEquals("0.098485", FixedDecimal.render(cub.blocksPerSm));
        assertEquals("1.181818", FixedDecimal.render(cub.warpsPerSm));
        assertEquals(2, cub.occupancyPercent);
    }

    @Test
    void theGridAndBlockAreTheProductOfTheirThreeDimensions() {
        CuptiKernelMetrics metrics = new CuptiKernelMetrics(List.of(H200));
        TraceRecord flat = kernel(0, 256, 256, 44, 0);
        TraceRecord folded = kernel(0, 16, 16, 44, 0);
        folded.gridY = 16;
        folded.blockY = 4;
        folded.blockZ = 4;
        metrics.fill(flat);
        metrics.fill(folded);
        assertEquals(flat.blocksPerSm, folded.blocksPerSm);
        assertEquals(flat.warpsPerSm, folded.warpsPerSm);
        assertEquals(flat.occupancyPercent, folded.occupancyPercent);
    }

    @Test
    void onlyAKernelOfADeviceWithKnownPropertiesGetsFigures() {
        DeviceProperties third = new DeviceProperties(2, H200.name(), H200.totalGlobalMem(), H200.computeMajor(),
                H200.computeMinor(), H200.maxThreadsPerBlock(), H200.maxThreadsPerMultiprocessor(), H200.regsPerBlock(),
                H200.warpSize(), H200.sharedMemPerBlock(), H200.numSms(), H200.regsPerMultiprocessor(),
                H200.sharedMemPerBlockOptin(), H200.sharedMemPerMultiprocessor());
        CuptiKernelMetrics sparse = new CuptiKernelMetrics(List.of(third));
        for (int device : new int[] {-1, 0, 1, 3, 1023}) {
            TraceRecord k = kernel(device, 256, 256, 44, 0);
            sparse.fill(k);
            assertTrue(Float.isNaN(k.blocksPerSm) && Float.isNaN(k.warpsPerSm), "device " + device);
            assertEquals(TraceRecord.NO_OCCUPANCY, k.occupancyPercent, "device " + device);
        }
        TraceRecord onTwo = kernel(2, 256, 256, 44, 0);
        sparse.fill(onTwo);
        assertEquals(24, onTwo.occupancyPercent);

        TraceRecord none = kernel(0, 256, 256, 44, 0);
        new CuptiKernelMetrics(List.of()).fill(none);
        assertEquals(TraceRecord.NO_OCCUPANCY, none.occupancyPercent, "no properties: nothing invented");
    }
}
