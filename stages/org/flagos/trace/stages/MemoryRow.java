package org.flagos.trace.stages;

/**
 * One device-memory event as a {@link TraceSink} draws it: torch's {@code [memory]} instant, on the
 * host thread whose runtime call allocated or released the memory. Refilled for every event (no
 * allocation per event); valid only during the sink call.
 */
public final class MemoryRow {
    /** torch's {@code Device Type} of host memory (c10's CPU). */
    public static final int DEVICE_TYPE_CPU = 0;
    /** torch's {@code Device Type} of device memory (c10's CUDA). */
    public static final int DEVICE_TYPE_CUDA = 1;

    public long pid;
    public long tid;
    public long tsNs;
    /** {@link #DEVICE_TYPE_CUDA}, or {@link #DEVICE_TYPE_CPU} for pinned or pageable host memory. */
    public int deviceType;
    /** The device's ordinal; -1 for host memory, as torch writes a CPU allocation. */
    public int deviceId;
    public long address;
    /** Bytes allocated (positive) or released (negative), as torch's {@code Bytes}. */
    public long bytes;
    /** What the capture has seen allocated and not released on this device, this event included. */
    public long totalAllocated;
    /** What is reserved on this device: with no caching allocator in between, what is allocated. */
    public long totalReserved;
    /** torch's {@code Ev Idx}: one numbering with the op rows', in the order rows are written. */
    public long evIdx;
}
