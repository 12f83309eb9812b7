package org.flagos.trace.model;

import java.util.Optional;

/**
 * An immutable, vendor-neutral snapshot of one activity record, for code outside the ring (tests,
 * listeners, tools). The ring itself carries {@link TraceRecord} slots, which are reused.
 *
 * @param correlation the vendor's id pairing the API call and its device work; empty when the vendor gave none
 * @param externalId  the host op's id (0 is valid); empty when the record ran outside any op
 * @param name        demangled kernel name, API name, or the copy/memset label
 * @param thread      the host thread of an API call; 0 for device work
 */
public record DeviceEvent(
        EventKind kind,
        long startNs,
        long endNs,
        Optional<CorrelationId> correlation,
        Optional<ExternalId> externalId,
        int device,
        int stream,
        long thread,
        String name) {

    /** Copies {@code record} (an ACTIVITY slot) into an event, resolving its name. */
    public static DeviceEvent of(TraceRecord record, NameTable names) {
        if (record.type != RecordType.ACTIVITY) {
            throw new IllegalArgumentException("not an activity record: " + record.type);
        }
        return new DeviceEvent(record.kind, record.startNs, record.endNs,
                !record.hasCorrelation() ? Optional.empty() : Optional.of(new CorrelationId(record.correlation())),
                record.hasExternalId() ? Optional.of(new ExternalId(record.externalId())) : Optional.empty(),
                record.device, record.stream, record.kind.isDevice() ? 0 : record.threadId,
                record.nameId >= 0 ? names.name(record.nameId) : null);
    }

    public long durationNs() {
        return endNs - startNs;
    }
}
