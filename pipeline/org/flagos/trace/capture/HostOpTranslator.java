package org.flagos.trace.capture;

import com.lmax.disruptor.EventTranslatorOneArg;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;

/** Publishes a host op range (or the session's own markers) into a ring slot: a plain copy; the name stage interns its names. */
final class HostOpTranslator {
    static final EventTranslatorOneArg<TraceRecord, HostOp> HOST_OP = (slot, sequence, op) -> {
        slot.clear();
        slot.type = RecordType.HOST_OP;
        slot.opName = op.name();
        slot.opThreadName = op.threadName();
        slot.opArgs = op.args();
        slot.opStack = op.stack();
        slot.opAnnotation = op.annotation();
        slot.externalId(op.externalId().value());
        slot.threadId = op.thread();
        slot.startNs = op.startNs();
        slot.endNs = op.endNs();
    };

    static final EventTranslatorOneArg<TraceRecord, Long> FLUSH_BARRIER = (slot, sequence, ns) -> {
        slot.clear();
        slot.type = RecordType.FLUSH_BARRIER;
        slot.startNs = ns;
        slot.endNs = ns;
    };

    static final EventTranslatorOneArg<TraceRecord, Void> END_OF_CAPTURE = (slot, sequence, nothing) -> {
        slot.clear();
        slot.type = RecordType.END_OF_CAPTURE;
    };

    private HostOpTranslator() {
    }
}
