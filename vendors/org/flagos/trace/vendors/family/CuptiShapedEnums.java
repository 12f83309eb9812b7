package org.flagos.trace.vendors.family;

import org.flagos.trace.model.CopyKind;
import org.flagos.trace.model.MemoryKind;

/** CUPTI's copy and memory kind numbers (CUPTI's own, and assumed shared by CUPTI-shaped vendors) to the vendor-neutral enums. */
public final class CuptiShapedEnums {
    private static final CopyKind[] COPY_KINDS = {
        CopyKind.UNKNOWN, CopyKind.HTOD, CopyKind.DTOH, CopyKind.HTOA, CopyKind.ATOH, CopyKind.ATOA,
        CopyKind.ATOD, CopyKind.DTOA, CopyKind.DTOD, CopyKind.HTOH, CopyKind.PTOP,
    };
    private static final MemoryKind[] MEMORY_KINDS = {
        MemoryKind.UNKNOWN, MemoryKind.PAGEABLE, MemoryKind.PINNED, MemoryKind.DEVICE, MemoryKind.ARRAY,
        MemoryKind.MANAGED, MemoryKind.DEVICE_STATIC, MemoryKind.MANAGED_STATIC,
    };

    /** The copy kind numbered {@code kind}; UNKNOWN when out of range. */
    public static CopyKind copyKind(int kind) {
        return kind >= 0 && kind < COPY_KINDS.length ? COPY_KINDS[kind] : CopyKind.UNKNOWN;
    }

    /** The memory kind numbered {@code kind}; UNKNOWN when out of range. */
    public static MemoryKind memoryKind(int kind) {
        return kind >= 0 && kind < MEMORY_KINDS.length ? MEMORY_KINDS[kind] : MemoryKind.UNKNOWN;
    }

    private CuptiShapedEnums() {
    }
}
