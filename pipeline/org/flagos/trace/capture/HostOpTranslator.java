package org.flagos.trace.capture;

import com.lmax.disruptor.EventTranslatorTwoArg;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;

/** Publishes a host op range into a ring slot. */
final class HostOpTranslator {
    static final EventTranslatorTwoArg<TraceRecord, HostOp, NameTable> HOST_OP = (slot, sequence, op, names) -> {
        slot.clear();
        slot.type = RecordType.HOST_OP;
        slot.nameId = names.intern(op.name());
        slot.externalId(op.externalId().value());
        slot.threadId = op.thread();
        slot.threadNameId = op.threadName() == null ? -1 : names.intern(op.threadName());
        slot.startNs = op.startNs();
        slot.endNs = op.endNs();
    };

    static final com.lmax.disruptor.EventTranslator<TraceRecord> END_OF_CAPTURE = (slot, sequence) -> {
        slot.clear();
        slot.type = RecordType.END_OF_CAPTURE;
    };

    private HostOpTranslator() {
    }
}
