package org.flagos.trace.vendors.mspti;

import com.lmax.disruptor.EventTranslatorOneArg;
import org.flagos.trace.model.CopyKind;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.TraceRecord;

/**
 * Flyweight over an {@code msptiActivityMemcpy} record, read in place. Device and stream are flat
 * fields here (not the kernel's {@code ds} pair); there is no context and no memory kind, so the
 * trace names the copy by direction only ({@code Memcpy HtoD}).
 */
final class MsptiMemcpyRecord extends MsptiTransferRecord {
    private static final int COPY_KIND = 4;

    static final EventTranslatorOneArg<TraceRecord, MsptiMemcpyRecord> TRANSLATOR = (slot, sequence, m) -> {
        m.fill(slot, EventKind.MEMCPY);
        slot.copyKind = copyKind(m.copyKind());
        slot.present(RecordField.BYTES);
    };

    MsptiMemcpyRecord() {
        super("msptiActivityMemcpy");
    }

    /** {@code msptiActivityMemcpyKind}: UNKNOWN 0, HTOH 1, HTOD 2, DTOH 3, DTOD 4, DEFAULT 5. */
    static CopyKind copyKind(int kind) {
        switch (kind) {
            case 1: return CopyKind.HTOH;
            case 2: return CopyKind.HTOD;
            case 3: return CopyKind.DTOH;
            case 4: return CopyKind.DTOD;
            default: return CopyKind.UNKNOWN;
        }
    }

    int copyKind() {
        return buffer.getInt(offset + COPY_KIND);
    }
}
