package org.flagos.trace.vendors.cupti;

import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.ByteBuffer;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.vendors.activity.RecordBounds;

/**
 * Flyweight over a CUPTI overhead record (kind OVERHEAD, {@code CUpti_ActivityOverhead3}, 56 bytes),
 * read in place, little-endian: overheadKind 4, start 24, end 32. What CUPTI spent on itself (buffer
 * requests and flushes, instrumentation, lazy loading), published under the name torch gives each
 * kind, a constant string.
 */
final class CuptiOverheadDecoder {
    private static final int OVERHEAD_KIND = 4;
    private static final int START = 24;
    private static final int END = 32;
    /** The fields read end here. */
    static final int FIELDS_END = 40;

    static final EventTranslatorOneArg<TraceRecord, CuptiOverheadDecoder> TRANSLATOR = (slot, sequence, o) -> {
        slot.clear();
        slot.type = RecordType.ACTIVITY;
        slot.kind = EventKind.OVERHEAD;
        slot.startNs = o.times.startNs();
        slot.endNs = o.times.endNs();
        slot.label = name(o.overheadKind());
    };

    private final CuptiTimes times;
    private final int size;
    private ByteBuffer buffer;
    private int offset;

    CuptiOverheadDecoder(CuptiRecordLayout layout, CuptiTimes times) {
        this.times = times;
        this.size = Math.max(layout.recordSize(CuptiActivityKind.OVERHEAD), FIELDS_END);
    }

    CuptiOverheadDecoder wrap(ByteBuffer buffer, int offset) {
        RecordBounds.check(buffer, offset, size, "CUpti_ActivityOverhead3");
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    int overheadKind() {
        return buffer.getInt(offset + OVERHEAD_KIND);
    }

    long rawStart() {
        return buffer.getLong(offset + START);
    }

    long rawEnd() {
        return buffer.getLong(offset + END);
    }

    /** torch's name of a {@code CUpti_ActivityOverheadKind} (kineto's cupti_strings). */
    static String name(int kind) {
        switch (kind) {
            case 0: return "Unknown";
            case 1: return "Driver Compiler";
            case 1 << 16: return "Buffer Flush";
            case 2 << 16: return "Instrumentation";
            case 3 << 16: return "Resource";
            case 4 << 16: return "Runtime Triggered Module Loading";
            case 5 << 16: return "Lazy Function Loading";
            case 6 << 16: return "Command Buffer Full";
            case 7 << 16: return "Activity Buffer Request";
            default: return "Unrecognized";
        }
    }
}
