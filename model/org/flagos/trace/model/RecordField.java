package org.flagos.trace.model;

/**
 * The record fields a vendor may not have. A decoder marks each one it read
 * ({@link TraceRecord#present(RecordField)}); the writer leaves an unmarked field out of the
 * trace rather than printing a zero no device reported. Ascend's kernel record, for one, has no
 * grid, block, registers or shared memory, and its API record no callback id.
 */
public enum RecordField {
    /** The device context ({@code context} arg). */
    CONTEXT,
    /** When the kernel was queued ({@code queued} arg). */
    QUEUED,
    /** Grid dimensions. */
    GRID,
    /** Block dimensions. */
    BLOCK,
    /** Registers per thread. */
    REGISTERS,
    /** Static plus dynamic shared memory. */
    SHARED_MEMORY,
    /** The API record's callback id ({@code cbid} arg). */
    CBID,
    /** Bytes a copy or memset moved. */
    BYTES,
    /** A memset's fill value. */
    MEMSET_VALUE,
    /** The graph and graph node a kernel, copy or set was launched from ({@code graphId}, {@code graphNodeId}). */
    GRAPH,
    /**
     * The two ends of a copy between two devices ({@code srcDevice}, {@code srcContext},
     * {@code dstDevice}, {@code dstContext}): the record's device and context are where it ran.
     */
    PEER;

    private final int bit = 1 << ordinal();

    /** This field's bit in {@link TraceRecord}'s presence mask. */
    public int bit() {
        return bit;
    }

    /** The mask of every field a CUPTI-shaped kernel record carries (grid, block, registers, ...). */
    public static final int CUDA_KERNEL = CONTEXT.bit | QUEUED.bit | GRID.bit | BLOCK.bit | REGISTERS.bit
            | SHARED_MEMORY.bit;
}
