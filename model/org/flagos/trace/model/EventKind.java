package org.flagos.trace.model;

/** What a vendor-neutral activity record describes. */
public enum EventKind {
    /** A device kernel execution. */
    KERNEL("kernel", true),
    /** A device copy. */
    MEMCPY("gpu_memcpy", true),
    /** A device memset. */
    MEMSET("gpu_memset", true),
    /** A runtime API call on a host thread (cudaLaunchKernel, ...). */
    RUNTIME("cuda_runtime", false),
    /** A driver API call on a host thread (cuLaunchKernel, ...). */
    DRIVER("cuda_driver", false),
    /** A synchronization the host waited on (stream, event, context, stream-wait-event), on its stream's row. */
    SYNC("cuda_sync", true),
    /** Time the vendor's profiling library spent on itself (buffer requests, flushes, instrumentation). */
    OVERHEAD("overhead", false),
    /**
     * A device-memory allocation or release (CUPTI MEMORY2): an instant, drawn as torch's
     * {@code [memory]} event on the host thread that asked for it.
     */
    MEMORY("cpu_instant_event", false),
    /**
     * A program's annotation (NVTX through the vendor): a range's start or end, or a mark
     * ({@link MarkerPhase}). The trace walk pairs a range's two ends into one host range, drawn as
     * torch's {@code user_annotation} on its thread; a mark is an instant there.
     */
    MARKER("user_annotation", false),
    /**
     * A unified-memory counter record (a migration, a page fault, thrashing, throttling, a remote
     * map: {@link UnifiedMemoryCounter}): the driver's work on managed memory, which no call launched
     * and no op owns (no correlation id, no thread); drawn on its device's {@code Unified Memory} row.
     */
    UNIFIED_MEMORY("unified_memory", false);

    private static final EventKind[] VALUES = values();

    private final String category;
    private final boolean device;

    EventKind(String category, boolean device) {
        this.category = category;
        this.device = device;
    }

    /** The Chrome-trace {@code cat} torch writes for this kind. */
    public String category() {
        return category;
    }

    /** True for work that ran on the device; false for host-side API calls. */
    public boolean isDevice() {
        return device;
    }

    /**
     * True for the kinds every trace's accounting lists even at zero (the first five); a later kind
     * is listed only when a record of it was decoded, so traces without one read as they always did.
     */
    public boolean listedWhenZero() {
        return ordinal() <= DRIVER.ordinal();
    }

    /** The kind for {@link #ordinal()}, without allocating. */
    public static EventKind ofOrdinal(int ordinal) {
        return VALUES[ordinal];
    }

    /** True for an instant record (a point in time, no duration), drawn by neither device nor API slice. */
    public boolean isInstant() {
        return this == MEMORY;
    }

    /** Number of kinds. */
    public static int count() {
        return VALUES.length;
    }
}
