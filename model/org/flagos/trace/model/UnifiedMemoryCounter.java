package org.flagos.trace.model;

/**
 * What one unified-memory record counts (a vendor's migration or fault counter), with the name the
 * trace draws it under, in Nsight Systems' words. Transfers carry the bytes moved, a GPU page-fault
 * group the number of faults grouped, a CPU page fault the faulting instruction's address.
 */
public enum UnifiedMemoryCounter {
    /** Bytes migrated from host to device. */
    BYTES_HTOD("Unified Memory memcpy HtoD", true),
    /** Bytes migrated from device to host. */
    BYTES_DTOH("Unified Memory memcpy DtoH", true),
    /** Bytes migrated between two devices. */
    BYTES_DTOD("Unified Memory memcpy DtoD", true),
    /** One CPU page fault: an instant (the vendor gives it no end). */
    CPU_PAGE_FAULT("CPU page fault", false),
    /** A group of GPU page faults on one page, from the fault's processing to its replay. */
    GPU_PAGE_FAULT_GROUP("GPU page fault group", true),
    /** Pages the driver found migrating back and forth between processors: an instant. */
    THRASHING("Unified Memory thrashing", false),
    /** The driver throttling a processor's faults on a thrashing region. */
    THROTTLING("Unified Memory throttling", true),
    /** Pages mapped into a processor's address space instead of migrated: an instant. */
    REMOTE_MAP("Unified Memory remote map", false);

    private final String label;
    private final boolean lasting;

    UnifiedMemoryCounter(String label, boolean lasting) {
        this.label = label;
        this.lasting = lasting;
    }

    /** The event's name in the trace. */
    public String label() {
        return label;
    }

    /** True when the record spans a time (a complete event); false for an instant. */
    public boolean lasting() {
        return lasting;
    }

    /** True for the three migrations, whose value is bytes moved. */
    public boolean transfer() {
        return this == BYTES_HTOD || this == BYTES_DTOH || this == BYTES_DTOD;
    }
}
