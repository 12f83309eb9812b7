package org.flagos.trace.vendors.cupti;

import org.flagos.trace.pipeline.CopyKind;
import org.flagos.trace.pipeline.MemoryKind;

/** CUPTI's copy and memory kind numbers to the vendor-neutral enums. */
final class CuptiEnums {
    private static final CopyKind[] COPY_KINDS = {
        CopyKind.UNKNOWN, CopyKind.HTOD, CopyKind.DTOH, CopyKind.HTOA, CopyKind.ATOH, CopyKind.ATOA,
        CopyKind.ATOD, CopyKind.DTOA, CopyKind.DTOD, CopyKind.HTOH, CopyKind.PTOP,
    };
    private static final MemoryKind[] MEMORY_KINDS = {
        MemoryKind.UNKNOWN, MemoryKind.PAGEABLE, MemoryKind.PINNED, MemoryKind.DEVICE, MemoryKind.ARRAY,
        MemoryKind.MANAGED, MemoryKind.DEVICE_STATIC, MemoryKind.MANAGED_STATIC,
    };

    static CopyKind copyKind(int cupti) {
        return cupti >= 0 && cupti < COPY_KINDS.length ? COPY_KINDS[cupti] : CopyKind.UNKNOWN;
    }

    static MemoryKind memoryKind(int cupti) {
        return cupti >= 0 && cupti < MEMORY_KINDS.length ? MEMORY_KINDS[cupti] : MemoryKind.UNKNOWN;
    }

    private CuptiEnums() {
    }
}
