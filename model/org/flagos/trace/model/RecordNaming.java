package org.flagos.trace.model;

/**
 * A vendor's side of naming its records, asked by the name stage only. A decoder's translator
 * copies the handles its records carry (a kernel's name pointer; the name pointer of an API
 * record, for vendors whose records carry one) and this object into the slot; the name stage
 * resolves each handle once, demangles kernel names and interns them. Nothing here runs while a
 * producer holds a ring slot.
 */
public interface RecordNaming {
    /** The vendor's (possibly mangled) name of the kernel behind {@code handle}, or null when unknown. */
    String kernelName(long handle);

    /** The API name behind an API record's {@code handle}, or null: the callback-id table names it then. */
    default String apiName(long handle) {
        return null;
    }

    /**
     * The text behind an annotation's name or domain handle (an NVTX message CUPTI points to), or
     * null when unknown; never demangled.
     */
    default String markerName(long handle) {
        return null;
    }

    /**
     * Fills what the vendor derives from a kernel record and its device (CUDA's blocks per SM, warps
     * per SM and achieved occupancy); nothing by default, and the trace then leaves them out.
     */
    default void kernelFigures(TraceRecord kernel) {
    }

    /** Kernel names from {@code names}, nothing else. */
    static RecordNaming of(KernelNames names) {
        return names::lookup;
    }
}
