package org.flagos.trace.vendors.cupti;

import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.ByteBuffer;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.model.UnifiedMemoryCounter;
import org.flagos.trace.vendors.activity.RecordBounds;

/**
 * Flyweight over a CUPTI unified-memory counter record (kind UNIFIED_MEMORY_COUNTER,
 * {@code CUpti_ActivityUnifiedMemoryCounter3}, 104 bytes), read in place, little-endian: counterKind 4,
 * value 8, start 16, end 24, address 32, srcId 40, dstId 44, processId 52, flags 56 (gcc's {@code offsetof}
 * against CUDA 13.0's {@code cupti_activity.h}, API version 130001, and the H200 capture's table). The
 * stream id (48) is documented as invalid, and the processor bitmask (64, five words) is not read.
 * The record has no correlation id and no thread: nothing joins it to a call or an op.
 *
 * <p>Its device: a transfer's device end (HtoD's destination, DtoH's and DtoD's source), a GPU fault's
 * or throttling's source, a remote map's destination, thrashing's lowest device in its source mask; a
 * CPU page fault names no processor and goes to device 0.
 */
final class CuptiUnifiedMemoryDecoder {
    /** {@code CUpti_ActivityUnifiedMemoryCounterKind}: 1 to 8 (0 unknown). */
    static final int HTOD = 1;
    static final int DTOH = 2;
    static final int CPU_PAGE_FAULT_COUNT = 3;
    static final int GPU_PAGE_FAULT = 4;
    static final int THRASHING = 5;
    static final int THROTTLING = 6;
    static final int REMOTE_MAP = 7;
    static final int DTOD = 8;

    private static final int COUNTER_KIND = 4;
    private static final int VALUE = 8;
    private static final int START = 16;
    private static final int END = 24;
    private static final int ADDRESS = 32;
    private static final int SRC_ID = 40;
    private static final int DST_ID = 44;
    private static final int PROCESS_ID = 52;
    private static final int FLAGS = 56;
    /** The fields read end here. */
    static final int FIELDS_END = 60;

    private static final UnifiedMemoryCounter[] COUNTERS = {null, UnifiedMemoryCounter.BYTES_HTOD,
        UnifiedMemoryCounter.BYTES_DTOH, UnifiedMemoryCounter.CPU_PAGE_FAULT, UnifiedMemoryCounter.GPU_PAGE_FAULT_GROUP,
        UnifiedMemoryCounter.THRASHING, UnifiedMemoryCounter.THROTTLING, UnifiedMemoryCounter.REMOTE_MAP,
        UnifiedMemoryCounter.BYTES_DTOD};
    /** {@code CUpti_ActivityUnifiedMemoryMigrationCause}, 0 to 5. */
    private static final String[] MIGRATION_CAUSES = {"unknown", "user", "coherence", "prefetch", "eviction",
        "access counters"};
    /** {@code CUpti_ActivityUnifiedMemoryAccessType}, 0 to 4. */
    private static final String[] ACCESS_TYPES = {"unknown", "read", "write", "atomic", "prefetch"};
    /** {@code CUpti_ActivityUnifiedMemoryRemoteMapCause}, 0 to 5. */
    private static final String[] REMOTE_MAP_CAUSES = {"unknown", "coherence", "thrashing", "policy", "out of memory",
        "eviction"};

    static final EventTranslatorOneArg<TraceRecord, CuptiUnifiedMemoryDecoder> TRANSLATOR = (slot, sequence, u) -> {
        slot.clear();
        slot.type = RecordType.ACTIVITY;
        slot.kind = EventKind.UNIFIED_MEMORY;
        slot.startNs = u.times.startNs();
        slot.endNs = u.times.endNs();
        slot.device = u.deviceId();
        slot.processId = u.processId();
        slot.address = u.address();
        UnifiedMemoryCounter counter = u.counter();
        slot.umCounter = counter;
        slot.umValue = u.value();
        slot.umSrcId = u.srcId();
        slot.umDstId = u.dstId();
        slot.umFlag = u.flagWord();
        if (u.valueIsBytes()) {
            slot.bytes = u.value();
            slot.present(RecordField.BYTES);
        }
    };

    private final CuptiTimes times;
    private final int size;
    private ByteBuffer buffer;
    private int offset;

    CuptiUnifiedMemoryDecoder(CuptiRecordLayout layout, CuptiTimes times) {
        this.times = times;
        this.size = Math.max(layout.recordSize(CuptiActivityKind.UNIFIED_MEMORY_COUNTER), FIELDS_END);
    }

    CuptiUnifiedMemoryDecoder wrap(ByteBuffer buffer, int offset) {
        RecordBounds.check(buffer, offset, size, "CUpti_ActivityUnifiedMemoryCounter3");
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** Why this record cannot be drawn (a counter kind CUPTI 13.0 does not define, bytes past 2^63), or null. */
    String invalid() {
        int kind = counterKind();
        if (kind < HTOD || kind > DTOD) {
            return "unified memory record with counter kind " + Integer.toUnsignedString(kind);
        }
        if (valueIsBytes() && value() < 0) {
            return "unified memory record of " + Long.toUnsignedString(value()) + " bytes (above 2^63)";
        }
        return null;
    }

    /** The counter; valid only when {@link #invalid()} is null. */
    UnifiedMemoryCounter counter() {
        return COUNTERS[counterKind()];
    }

    /** True when the record has an end: a transfer, a GPU fault group, throttling (the others' end is to be ignored). */
    boolean lasting() {
        return counter().lasting();
    }

    private boolean valueIsBytes() {
        int kind = counterKind();
        return kind == HTOD || kind == DTOH || kind == DTOD || kind == THRASHING || kind == REMOTE_MAP;
    }

    /** The device whose row draws it (class comment). */
    int deviceId() {
        switch (counterKind()) {
            case HTOD:
            case REMOTE_MAP:
                return dstId();
            case THRASHING:
                int mask = srcId();
                return mask == 0 ? 0 : Integer.numberOfTrailingZeros(mask);
            case CPU_PAGE_FAULT_COUNT:
                return 0;
            default:
                return srcId();
        }
    }

    /** The flags in words: a migration's cause, a fault's access type, a remote map's cause; else null. */
    String flagWord() {
        int flags = flags();
        switch (counterKind()) {
            case HTOD:
            case DTOH:
            case DTOD:
                return word(MIGRATION_CAUSES, flags);
            case CPU_PAGE_FAULT_COUNT:
            case GPU_PAGE_FAULT:
                return word(ACCESS_TYPES, flags);
            case REMOTE_MAP:
                return word(REMOTE_MAP_CAUSES, flags);
            default:
                return null;
        }
    }

    private static String word(String[] words, int value) {
        return value >= 0 && value < words.length ? words[value] : "unknown";
    }

    int counterKind() {
        return buffer.getInt(offset + COUNTER_KIND);
    }

    long value() {
        return buffer.getLong(offset + VALUE);
    }

    long rawStart() {
        return buffer.getLong(offset + START);
    }

    long rawEnd() {
        return buffer.getLong(offset + END);
    }

    long address() {
        return buffer.getLong(offset + ADDRESS);
    }

    int srcId() {
        return buffer.getInt(offset + SRC_ID);
    }

    int dstId() {
        return buffer.getInt(offset + DST_ID);
    }

    int processId() {
        return buffer.getInt(offset + PROCESS_ID);
    }

    int flags() {
        return buffer.getInt(offset + FLAGS);
    }
}
