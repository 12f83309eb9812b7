package org.flagos.trace.vendors.cupti;

import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.vendors.family.CuptiShapedEnums;

/**
 * The ring-slot fields that CUPTI's kernel, copy, set and memory records publish alike, filled from
 * values their decoders have read at their own offsets. Static, so the translators that call it stay
 * non-capturing and the decode path makes no virtual call and no allocation.
 */
final class CuptiActivitySlot {
    private CuptiActivitySlot() {
    }

    /** Clears {@code slot} and fills the fields every device activity record carries. */
    static void fill(TraceRecord slot, EventKind kind, long startNs, long endNs, int device, int context, int stream,
            long correlation) {
        slot.activity(kind, startNs, endNs, correlation);
        slot.device = device;
        slot.context = context;
        slot.stream = stream;
    }

    /** The fields of a copy (memcpy or peer copy): its size and CUPTI's copy and memory kinds. */
    static void fillCopy(TraceRecord slot, long bytes, int copyKind, int srcKind, int dstKind) {
        slot.bytes = bytes;
        slot.copyKind = CuptiShapedEnums.copyKind(copyKind);
        slot.srcKind = CuptiShapedEnums.memoryKind(srcKind);
        slot.dstKind = CuptiShapedEnums.memoryKind(dstKind);
    }
}
