package org.flagos.trace.vendors.cupti;


import org.flagos.trace.model.DeviceProperties;

/**
 * The three occupancy figures torch/kineto put in a kernel event's args — {@code "blocks per SM"},
 * {@code "warps per SM"} and {@code "est. achieved occupancy %"} — computed from a CUPTI kernel
 * record's launch fields and the device's properties, bit for bit as kineto computes and prints them.
 *
 * <p>Kineto's rules, as implemented here:
 * <ul>
 *   <li>blocks per SM = {@code (gridX*gridY*gridZ) / (float) numSms}: 32-bit int product, one float
 *       division;</li>
 *   <li>warps per SM = {@code blocksPerSm * (blockX*blockY*blockZ) / 32} in float arithmetic — a plain
 *       division by a fixed 32 (kineto does not use the device's warp size and does not round a block
 *       up to whole warps, so a one-thread kernel counts 1/32 of a warp);</li>
 *   <li>achieved occupancy = {@code min(activeBlocksPerSm, blocksPerSm) * blockSize /
 *       (float) maxThreadsPerMultiprocessor}, where activeBlocksPerSm is the CUDA occupancy
 *       calculator's answer (see {@link #maxActiveBlocksPerSm}); -1 when the calculator fails;</li>
 *   <li>the two per-SM figures are printed as C's {@code "%f"} of the float (six decimals, exact value
 *       rounded to nearest, ties to even), or as the JSON string {@code "inf"} when infinite;</li>
 *   <li>the percentage is printed as the C int {@code (int) (0.5 + occupancy * 100.0)}: rounded half up
 *       for the usual non-negative values, and -99 when occupancy could not be computed.</li>
 * </ul>
 *
 * <p>The occupancy calculator is a re-implementation of the rules of
 * {@code cudaOccMaxActiveBlocksPerMultiprocessor} for the function attributes kineto passes (registers
 * per thread, static shared memory, unlimited block size, partitioned global caching off, default
 * per-block shared memory limit, no opt-in dynamic shared memory, no block barriers) and a default device
 * state (no cache or carve-out preference). Per-SM limits that the trace's {@code deviceProperties} do not
 * carry come from a table keyed by compute capability (3.x to 12.x).
 *
 * <p>All methods are static and allocation-free. The trace writer prints the per-SM figures
 * ({@code org.flagos.trace.encoders.FixedDecimal}).
 */
public final class CudaOccupancy {

    /** Returned by the calculator and the percent helper when a value cannot be computed. */
    public static final int NOT_COMPUTABLE = -1;

    /**
     * What kineto writes as {@code "est. achieved occupancy %"} when the occupancy cannot be computed:
     * its occupancy is then -1, and {@code (int) (0.5 + -1 * 100.0)} is -99.
     */
    public static final int TRACE_PERCENT_NOT_COMPUTABLE = -99;

    /** Limiting-factor bit: warp slots per SM (block size). */
    public static final int LIMIT_WARPS = 0x01;
    /** Limiting-factor bit: registers per SM. */
    public static final int LIMIT_REGISTERS = 0x02;
    /** Limiting-factor bit: shared memory per SM. */
    public static final int LIMIT_SHARED_MEMORY = 0x04;
    /** Limiting-factor bit: the hardware's maximum resident blocks per SM. */
    public static final int LIMIT_BLOCKS = 0x08;

    /** Kineto divides by this constant, not by the device's warp size. */
    private static final int KINETO_THREADS_PER_WARP = 32;
    private static final int FAIL = -1;
    private static final int KIB = 1024;

    private CudaOccupancy() {
    }

    // ---------------------------------------------------------------------------------------------
    // The three trace figures
    // ---------------------------------------------------------------------------------------------

    /**
     * Kineto's {@code "blocks per SM"}: the grid's block count over the SM count, in float.
     * The product of the grid dimensions is a 32-bit int product, as in kineto.
     *
     * @return the value; +infinity when {@code numSms} is 0 (kineto then prints {@code "inf"})
     */
    public static float blocksPerSm(DeviceProperties p, int gridX, int gridY, int gridZ) {
        return (gridX * gridY * gridZ) / (float) p.numSms();
    }

    /**
     * Kineto's {@code "blocks per SM"} from a precomputed grid block count. Kineto multiplies the three
     * grid dimensions in 32-bit ints, so the count is narrowed to its low 32 bits first: for
     * {@code (long) gridX * gridY * gridZ} that equals kineto's product, wrap-around included.
     *
     * @param gridBlocks the number of blocks in the grid
     * @return the value; +infinity when {@code numSms} is 0 (kineto then prints {@code "inf"})
     */
    public static float blocksPerSm(DeviceProperties p, long gridBlocks) {
        return ((int) gridBlocks) / (float) p.numSms();
    }

    /**
     * Kineto's {@code "warps per SM"}: {@link #blocksPerSm} times the threads per block, divided by a
     * fixed 32, all in float. Not rounded up to whole warps.
     *
     * @return the value; +infinity when {@code numSms} is 0
     */
    public static float warpsPerSm(DeviceProperties p, int gridX, int gridY, int gridZ,
            int blockX, int blockY, int blockZ) {
        return warpsPerSm(p, blocksPerSm(p, gridX, gridY, gridZ), blockX * blockY * blockZ);
    }

    /**
     * Kineto's {@code "warps per SM"} from its blocks per SM: {@code blocksPerSm * blockSize / 32} in
     * float, with the fixed 32 kineto uses whatever the device's warp size (the device argument is
     * unused and kept for symmetry).
     *
     * @param blocksPerSm the value {@link #blocksPerSm} returned
     * @param blockSize threads per block, {@code blockX * blockY * blockZ}
     * @return the value; +infinity when blocksPerSm is
     */
    public static float warpsPerSm(DeviceProperties p, float blocksPerSm, int blockSize) {
        return blocksPerSm * blockSize / KINETO_THREADS_PER_WARP;
    }

    /**
     * Kineto's estimated achieved occupancy as a fraction: the grid's blocks per SM, capped at what the
     * occupancy calculator says can be resident, times the block size, over the SM's thread capacity.
     *
     * @param registersPerThread the record's {@code registersPerThread}
     * @param staticSmem the record's {@code staticSharedMemory}
     * @param dynamicSmem the record's {@code dynamicSharedMemory}
     * @return the float kineto computes, or -1 when the calculator fails (as kineto's)
     */
    public static float occupancy(DeviceProperties p, int gridX, int gridY, int gridZ,
            int blockX, int blockY, int blockZ, int registersPerThread, int staticSmem, int dynamicSmem) {
        return occupancy(p, registersPerThread, staticSmem, dynamicSmem, blockX * blockY * blockZ,
                blocksPerSm(p, gridX, gridY, gridZ));
    }

    /**
     * Kineto's estimated achieved occupancy as a fraction, from the launch's blocks per SM:
     * {@code min(activeBlocks, blocksPerSm) * blockSize / (float) maxThreadsPerMultiprocessor}.
     *
     * @param registersPerThread the record's {@code registersPerThread}
     * @param staticSmem the record's {@code staticSharedMemory}
     * @param dynamicSmem the record's {@code dynamicSharedMemory}
     * @param blockSize threads per block, {@code blockX * blockY * blockZ}
     * @param blocksPerSm the value {@link #blocksPerSm} returned
     * @return the float kineto computes, or -1 when the calculator fails (as kineto's)
     */
    public static float occupancy(DeviceProperties p, int registersPerThread, int staticSmem, int dynamicSmem,
            int blockSize, float blocksPerSm) {
        int active = maxActiveBlocksPerSm(p, registersPerThread, staticSmem, dynamicSmem, blockSize);
        return active == NOT_COMPUTABLE ? -1.0f : cappedOccupancy(p, blockSize, blocksPerSm, active);
    }

    private static float cappedOccupancy(DeviceProperties p, int blockSize, float blocksPerSm, int activeBlocks) {
        float blocks = blocksPerSm;
        if (activeBlocks < blocks) {
            blocks = activeBlocks;
        }
        return blocks * blockSize / (float) p.maxThreadsPerMultiprocessor();
    }

    /**
     * The achieved occupancy as kineto's integer percentage, {@code (int) (0.5 + occupancy * 100.0)}.
     *
     * @return the percentage, or {@link #NOT_COMPUTABLE} (-1) when the calculator fails; kineto itself
     *     writes {@link #TRACE_PERCENT_NOT_COMPUTABLE} (-99) then — see {@link #occupancyPercentArg}
     */
    public static int occupancyPercent(DeviceProperties p, int gridX, int gridY, int gridZ,
            int blockX, int blockY, int blockZ, int registersPerThread, int staticSmem, int dynamicSmem) {
        return occupancyPercent(p, registersPerThread, staticSmem, dynamicSmem, blockX * blockY * blockZ,
                blocksPerSm(p, gridX, gridY, gridZ));
    }

    /**
     * The achieved occupancy as kineto's integer percentage, from the launch's blocks per SM.
     *
     * @param registersPerThread the record's {@code registersPerThread}
     * @param staticSmem the record's {@code staticSharedMemory}
     * @param dynamicSmem the record's {@code dynamicSharedMemory}
     * @param blockSize threads per block, {@code blockX * blockY * blockZ}
     * @param blocksPerSm the value {@link #blocksPerSm} returned
     * @return the percentage, or {@link #NOT_COMPUTABLE} (-1) when the calculator fails; kineto itself
     *     writes {@link #TRACE_PERCENT_NOT_COMPUTABLE} (-99) then — see {@link #occupancyPercentArg}
     */
    public static int occupancyPercent(DeviceProperties p, int registersPerThread, int staticSmem, int dynamicSmem,
            int blockSize, float blocksPerSm) {
        int active = maxActiveBlocksPerSm(p, registersPerThread, staticSmem, dynamicSmem, blockSize);
        return active == NOT_COMPUTABLE ? NOT_COMPUTABLE
                : percent(cappedOccupancy(p, blockSize, blocksPerSm, active));
    }

    /**
     * The exact integer kineto writes as {@code "est. achieved occupancy %"}: like
     * {@link #occupancyPercent}, but -99 rather than -1 when occupancy cannot be computed.
     *
     * @return the value to write
     */
    public static int occupancyPercentArg(DeviceProperties p, int gridX, int gridY, int gridZ,
            int blockX, int blockY, int blockZ, int registersPerThread, int staticSmem, int dynamicSmem) {
        return percent(occupancy(p, gridX, gridY, gridZ, blockX, blockY, blockZ,
                registersPerThread, staticSmem, dynamicSmem));
    }

    /**
     * The exact integer kineto writes as {@code "est. achieved occupancy %"}, from the launch's blocks
     * per SM: {@code (int) (0.5 + occupancy * 100.0)}, hence -99 when occupancy cannot be computed.
     *
     * @param blockSize threads per block, {@code blockX * blockY * blockZ}
     * @param blocksPerSm the value {@link #blocksPerSm} returned
     * @return the value to write
     */
    public static int occupancyPercentArg(DeviceProperties p, int registersPerThread, int staticSmem,
            int dynamicSmem, int blockSize, float blocksPerSm) {
        return percent(occupancy(p, registersPerThread, staticSmem, dynamicSmem, blockSize, blocksPerSm));
    }

    private static int percent(float occupancy) {
        return (int) (0.5 + occupancy * 100.0);
    }

    // ---------------------------------------------------------------------------------------------
    // The occupancy calculator
    // ---------------------------------------------------------------------------------------------

    /**
     * The occupancy calculator's maximum number of resident blocks per SM for one kernel launch: the
     * least of the register, shared-memory, warp-slot and block-count limits. The function is described
     * as kineto describes it: {@code numRegs = registersPerThread}, static shared memory
     * {@code staticSmem}, no own block-size cap, partitioned global caching off, the default (non opt-in)
     * per-block shared memory limit and no dynamic shared memory cap; the device state is the default.
     *
     * <p>A launch that cannot fit (block larger than the device allows, too many registers, too much
     * shared memory) is not a failure: the answer is 0 blocks.
     *
     * @param registersPerThread registers per thread (CUPTI's {@code registersPerThread})
     * @param staticSmem static shared memory per block in bytes
     * @param dynamicSmem dynamic shared memory per block in bytes
     * @param blockSize threads per block
     * @return the block count (0 when the launch cannot fit), or {@link #NOT_COMPUTABLE} (-1) when the
     *     calculator fails: non-positive block size or device limits, negative register or shared memory
     *     counts, an unsupported compute capability, or a shared memory size no carve-out config holds
     */
    public static int maxActiveBlocksPerSm(DeviceProperties p, int registersPerThread, int staticSmem,
            int dynamicSmem, int blockSize) {
        if (blockSize <= 0 || registersPerThread < 0 || staticSmem < 0 || dynamicSmem < 0 || !devicePropsValid(p)) {
            return NOT_COMPUTABLE;
        }
        int regs = blockLimitRegisters(p, registersPerThread, blockSize);
        int warps = blockLimitWarps(p, blockSize);
        int blocks = maxBlocksPerSm(p.computeMajor(), p.computeMinor());
        int smem = blockLimitSharedMemory(p, staticSmem, dynamicSmem);
        if (regs == FAIL || warps == FAIL || blocks == FAIL || smem == FAIL) {
            return NOT_COMPUTABLE;
        }
        return Math.min(regs, Math.min(smem, Math.min(warps, blocks)));
    }

    /**
     * Which limits bound {@link #maxActiveBlocksPerSm}: the OR of the {@code LIMIT_*} bits of every limit
     * equal to the result, as the occupancy calculator reports them.
     *
     * @return the bit set, or 0 when the calculator fails
     */
    public static int limitingFactors(DeviceProperties p, int registersPerThread, int staticSmem,
            int dynamicSmem, int blockSize) {
        int active = maxActiveBlocksPerSm(p, registersPerThread, staticSmem, dynamicSmem, blockSize);
        if (active == NOT_COMPUTABLE) {
            return 0;
        }
        int factors = 0;
        if (active == blockLimitWarps(p, blockSize)) {
            factors |= LIMIT_WARPS;
        }
        if (active == blockLimitRegisters(p, registersPerThread, blockSize)) {
            factors |= LIMIT_REGISTERS;
        }
        if (active == blockLimitSharedMemory(p, staticSmem, dynamicSmem)) {
            factors |= LIMIT_SHARED_MEMORY;
        }
        if (active == maxBlocksPerSm(p.computeMajor(), p.computeMinor())) {
            factors |= LIMIT_BLOCKS;
        }
        return factors;
    }

    private static boolean devicePropsValid(DeviceProperties p) {
        return p.maxThreadsPerBlock() > 0 && p.maxThreadsPerMultiprocessor() > 0 && p.regsPerBlock() > 0
                && p.regsPerMultiprocessor() > 0 && p.warpSize() > 0 && p.sharedMemPerBlock() > 0
                && p.sharedMemPerMultiprocessor() > 0 && p.numSms() > 0;
    }

    private static int divideRoundUp(int x, int y) {
        return (x + (y - 1)) / y;
    }

    private static int roundUp(int x, int y) {
        return y * divideRoundUp(x, y);
    }

    /** Blocks per SM allowed by warp slots: 0 when the block exceeds the device's block size limit. */
    private static int blockLimitWarps(DeviceProperties p, int blockSize) {
        if (blockSize > p.maxThreadsPerBlock()) {
            return 0;
        }
        int maxWarpsPerSm = p.maxThreadsPerMultiprocessor() / p.warpSize();
        return maxWarpsPerSm / divideRoundUp(blockSize, p.warpSize());
    }

    /**
     * Blocks per SM allowed by registers: registers go to warps in units of the allocation granularity,
     * each of the SM's sub-partitions holds a quarter (or half) of the register file, and a block must
     * fit the per-block register limit even when its warps are rounded up to the sub-partition count.
     */
    private static int blockLimitRegisters(DeviceProperties p, int registersPerThread, int blockSize) {
        int major = p.computeMajor();
        int minor = p.computeMinor();
        int limit = blockLimitRegisters(p, registersPerThread, blockSize, major, minor);
        // Compute capability 6.0 has two sub-partitions, its 6.x siblings four: a launch that cannot run
        // on the siblings is treated as unable to run on 6.0 either.
        if (limit > 0 && major == 6 && minor == 0
                && blockLimitRegisters(p, registersPerThread, blockSize, 6, 1) == 0) {
            return 0;
        }
        return limit;
    }

    private static int blockLimitRegisters(DeviceProperties p, int registersPerThread, int blockSize,
            int major, int minor) {
        int granularity = registerAllocationGranularity(major);
        int maxPerThread = maxRegistersPerThread(major);
        int subPartitions = subPartitionsPerSm(major, minor);
        if (granularity == FAIL || maxPerThread == FAIL || subPartitions == FAIL) {
            return FAIL;
        }
        int warpsPerBlock = divideRoundUp(blockSize, p.warpSize());
        int regsPerWarp = roundUp(registersPerThread * p.warpSize(), granularity);
        int regsPerBlock = regsPerWarp * warpsPerBlock;
        int regsCheckedPerBlock = regsPerWarp * roundUp(warpsPerBlock, subPartitions);
        if (p.regsPerBlock() < regsCheckedPerBlock || p.regsPerBlock() < regsPerBlock
                || registersPerThread > maxPerThread) {
            return 0;
        }
        if (regsPerWarp <= 0) {
            return Integer.MAX_VALUE;
        }
        int warpsPerSubPartition = (p.regsPerMultiprocessor() / subPartitions) / regsPerWarp;
        return warpsPerSubPartition * subPartitions / warpsPerBlock;
    }

    /**
     * Blocks per SM allowed by shared memory. A block's footprint is its static and dynamic shared memory
     * plus the driver's per-block reservation, rounded up to the allocation granularity; it must not
     * exceed the default per-block limit (plus the reservation from compute capability 8 on), and the SM
     * offers its full shared memory (the default carve-out, snapped to a supported configuration).
     */
    private static int blockLimitSharedMemory(DeviceProperties p, int staticSmem, int dynamicSmem) {
        int major = p.computeMajor();
        int minor = p.computeMinor();
        int granularity = sharedMemoryAllocationGranularity(major);
        if (granularity == FAIL) {
            return FAIL;
        }
        long perSmPreference;
        if (major >= 7) {
            perSmPreference = alignUpSharedMemoryConfig(p.sharedMemPerMultiprocessor(), major, minor);
            if (perSmPreference == FAIL) {
                return FAIL;
            }
        } else if (major == 3 || major == 5 || major == 6) {
            perSmPreference = p.sharedMemPerMultiprocessor();
        } else {
            return FAIL;
        }
        long reserved = reservedSharedMemoryPerBlock(major);
        long total = staticSmem + reserved + dynamicSmem;
        int allocated = roundUp((int) total, granularity);

        long perBlockLimit;
        if (major >= 2 && major <= 12) {
            perBlockLimit = p.sharedMemPerBlock();
        } else {
            return FAIL;
        }
        if (major >= 8) {
            perBlockLimit += reserved;
        }
        // a negative int here is, in the calculator's unsigned arithmetic, beyond any limit
        if (allocated < 0 || allocated > perBlockLimit) {
            return 0;
        }
        long perSm;
        if (perSmPreference >= allocated) {
            perSm = perSmPreference;
        } else if (major >= 7) {
            perSm = alignUpSharedMemoryConfig(allocated, major, minor);
            if (perSm == FAIL) {
                return FAIL;
            }
        } else {
            perSm = p.sharedMemPerMultiprocessor();
        }
        return allocated > 0 ? (int) (perSm / allocated) : Integer.MAX_VALUE;
    }

    // ---------------------------------------------------------------------------------------------
    // Per compute capability architecture table
    // ---------------------------------------------------------------------------------------------

    /**
     * The hardware's maximum number of resident blocks per SM for a compute capability: 16 on 3.x,
     * 7.5, 8.6/8.7; 24 on 8.9, 10.1, 11.0, 12.x; 32 on 5.x, 6.x, 7.0/7.2, 8.0, 9.x, 10.0/10.3, 11.x
     * otherwise.
     *
     * @return the limit, or -1 for an unsupported compute capability
     */
    public static int maxBlocksPerSm(int major, int minor) {
        switch (major) {
            case 3:
                return 16;
            case 5:
            case 6:
                return 32;
            case 7:
                return minor == 5 ? 16 : 32;
            case 8:
                return minor == 0 ? 32 : minor == 9 ? 24 : 16;
            case 9:
                return 32;
            case 10:
                return minor == 1 ? 24 : 32;
            case 11:
                return minor == 0 ? 24 : 32;
            case 12:
                return 24;
            default:
                return FAIL;
        }
    }

    /**
     * Shared memory the driver reserves for each block: 1 KiB from compute capability 8.0 on, none
     * before. (The trace's {@code deviceProperties} does not carry CUDA's
     * {@code reservedSharedMemPerBlock}; this is its value on those devices.)
     *
     * @return bytes reserved per block
     */
    public static int reservedSharedMemoryPerBlock(int major) {
        return major >= 8 ? KIB : 0;
    }

    /** Shared memory is allocated per block in units of 256 bytes up to 7.x, 128 bytes from 8.x. */
    private static int sharedMemoryAllocationGranularity(int major) {
        switch (major) {
            case 3: case 5: case 6: case 7:
                return 256;
            case 8: case 9: case 10: case 11: case 12:
                return 128;
            default:
                return FAIL;
        }
    }

    /** Registers per thread cap: 255 up to 6.x, 256 from 7.x. */
    private static int maxRegistersPerThread(int major) {
        switch (major) {
            case 3: case 5: case 6:
                return 255;
            case 7: case 8: case 9: case 10: case 11: case 12:
                return 256;
            default:
                return FAIL;
        }
    }

    /** Registers are allocated per warp in units of 256 on every supported architecture. */
    private static int registerAllocationGranularity(int major) {
        switch (major) {
            case 3: case 5: case 6: case 7: case 8: case 9: case 10: case 11: case 12:
                return 256;
            default:
                return FAIL;
        }
    }

    /** Register file sub-partitions per SM: 4, except 2 on compute capability 6.0. */
    private static int subPartitionsPerSm(int major, int minor) {
        switch (major) {
            case 3: case 5: case 7: case 8: case 9: case 10: case 11: case 12:
                return 4;
            case 6:
                return minor == 0 ? 2 : 4;
            default:
                return FAIL;
        }
    }

    /**
     * Snaps a shared memory size up to the next shared-memory/L1 split the architecture supports (Volta
     * and later), in KiB: 7.5 {32, 64}; 7.x {0, 8, 16, 32, 64, 96}; 8.0/8.7 {0, 8, 16, 32, 64, 100,
     * 132, 164}; other 8.x and 12.0/12.1 {0, 8, 16, 32, 64, 100}; 9.x and 10.0/10.1/10.3, 11.0/11.1/11.3
     * {0, 8, 16, 32, 64, 100, 132, 164, 196, 228}.
     *
     * @return the snapped size in bytes, or -1 when it exceeds the largest split or the compute
     *     capability is unsupported
     */
    private static long alignUpSharedMemoryConfig(long size, int major, int minor) {
        int largestKib;
        boolean turing = false;
        switch (major) {
            case 7:
                turing = minor == 5;
                largestKib = turing ? 64 : 96;
                break;
            case 8:
                largestKib = minor == 0 || minor == 7 ? 164 : 100;
                break;
            case 9:
                largestKib = 228;
                break;
            case 10:
            case 11:
                if (minor != 0 && minor != 1 && minor != 3) {
                    return FAIL;
                }
                largestKib = 228;
                break;
            case 12:
                if (minor != 0 && minor != 1) {
                    return FAIL;
                }
                largestKib = 100;
                break;
            default:
                return FAIL;
        }
        if (turing) {
            return size <= 32 * KIB ? 32 * KIB : size <= 64 * KIB ? 64 * KIB : FAIL;
        }
        if (size == 0) {
            return 0;
        }
        // Splits from 8 KiB: 8, 16, 32, 64, then (Volta) 96, or (Ampere on) every 32 KiB from 100.
        for (int i = 0; ; i++) {
            int kib = splitKib(major, i);
            if (kib < 0 || kib > largestKib) {
                return FAIL;
            }
            if (size <= (long) kib * KIB) {
                return (long) kib * KIB;
            }
        }
    }

    /** The i-th supported non-zero split in KiB for a Volta-or-later, non-Turing architecture. */
    private static int splitKib(int major, int i) {
        if (i < 4) {
            return 8 << i; // 8, 16, 32, 64
        }
        if (major == 7) {
            return i == 4 ? 96 : -1;
        }
        return 100 + 32 * (i - 4); // 100, 132, 164, 196, 228, ...
    }
}
