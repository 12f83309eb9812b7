package org.flagos.trace.vendors.roctracer;

import java.nio.ByteBuffer;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordNaming;
import org.flagos.trace.model.RecordLimits;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.vendors.activity.RecordWalk;
import org.flagos.trace.vendors.family.ClockedDecoder;

/**
 * Walks a ROCtracer pool buffer ({@code [begin, end)} of the buffer callback) at the fixed 64-byte
 * stride of {@code activity_record_t} and publishes what it decodes:
 *
 * <ul>
 *   <li>HIP_OPS dispatch: a kernel; copy: a memcpy, or a memset when the command is a fill;
 *       barrier: skipped and counted (key {@code 2002});</li>
 *   <li>HIP_API: a runtime call, its {@code hip_api_id_t} as the cbid;</li>
 *   <li>EXT_API EXTERN_ID: the binding of a call's correlation id to the host op's External id;</li>
 *   <li>any other domain of ROCtracer's (HSA, KFD, ROCTX, a MARK): skipped and counted under
 *       {@code domain * 1000 + op}.</li>
 * </ul>
 *
 * A domain outside ROCtracer's enum means the buffer is not laid out as this decoder reads it: the
 * walk ends and the rest is counted, never guessed at; so does a record cut short. Times are in
 * ROCtracer's clock (CLOCK_BOOTTIME ns) and go through the session's mapping to epoch ns; a record
 * with no time, ending before it starts, or outside the plausible span is dropped and counted as
 * invalid.
 */
public final class RoctracerBufferDecoder implements ClockedDecoder {
    private final RoctracerApiNames apiNames;
    /** The one view of every record: API, ops and extern records are the same struct. */
    private final RoctracerRecord record;
    private DeviceClockMapping mapping;
    private long plausibleFromNs = Long.MIN_VALUE;
    private long plausibleToNs = Long.MAX_VALUE;

    /**
     * @param names   resolves kernel-name handles and API-name handles (the capture's name table, or
     *                the live library)
     * @param table   the capture's interned names
     * @param mapping ROCtracer's clock to epoch ns (a live session's, or the one saved beside a dump)
     */
    public RoctracerBufferDecoder(KernelNames names, NameTable table, DeviceClockMapping mapping) {
        // The name stage caches by handle: a live handle is the shim's process-lifetime copy of the name,
        // a replayed one the same value read back from the capture, so caching by handle is exact in
        // both. A null name (handle 0) is never looked up.
        this.record = new RoctracerRecord(RecordNaming.of(handle -> handle == 0 ? null : names.lookup(handle)));
        this.apiNames = new RoctracerApiNames(names);
        this.mapping = mapping;
    }

    @Override
    public ApiNames apiNames() {
        return apiNames;
    }

    @Override
    public void clock(DeviceClockMapping mapping, long plausibleFromNs, long plausibleToNs) {
        this.mapping = mapping;
        this.plausibleFromNs = plausibleFromNs;
        this.plausibleToNs = plausibleToNs;
    }

    @Override
    public void decode(ByteBuffer source, RecordSink sink, DecodeStats stats) {
        ByteBuffer buffer = RecordWalk.littleEndian(source);
        int base = buffer.position();
        int limit = buffer.limit();
        for (int pos = base; pos < limit; pos += RoctracerRecord.SIZE) {
            if (limit - pos < RoctracerRecord.SIZE) {
                stats.undecodable(limit - pos, "ROCtracer buffer ends with " + (limit - pos)
                        + " bytes, less than a 64-byte record, at offset " + (pos - base));
                return;
            }
            int domain = record.wrap(buffer, pos).domain();
            if (domain < 0 || domain >= RoctracerRecord.DOMAIN_NUMBER) {
                stats.undecodable(limit - pos, "unknown ROCtracer activity domain " + Integer.toUnsignedString(domain)
                        + " at offset " + (pos - base) + ": not an activity_record_t, rest of buffer ("
                        + (limit - pos) + " bytes) skipped");
                return;
            }
            decodeRecord(domain, sink, stats);
        }
    }

    /** Publishes the wrapped {@link #record} of {@code domain}, or counts it. */
    private void decodeRecord(int domain, RecordSink sink, DecodeStats stats) {
        int op = record.op();
        switch (domain) {
            case RoctracerRecord.DOMAIN_HIP_OPS:
                if (op == RoctracerRecord.OP_DISPATCH || op == RoctracerRecord.OP_COPY) {
                    device(sink, stats);
                } else {
                    stats.countSkipped(RoctracerRecord.skipKey(domain, op)); // barriers: no work of their own
                }
                break;
            case RoctracerRecord.DOMAIN_HIP_API:
                if (times(record.begin(), record.end(), "HIP_API", stats)) {
                    sink.publish(RoctracerRecord.API, record);
                    stats.countPublished(EventKind.RUNTIME);
                }
                break;
            case RoctracerRecord.DOMAIN_EXT_API:
                if (op != RoctracerRecord.EXT_OP_EXTERN_ID) {
                    stats.countSkipped(RoctracerRecord.skipKey(domain, op)); // MARK
                } else if (record.externalId() < 0) {
                    stats.invalid("External id above 2^63 in EXT_API record of correlation "
                            + Long.toUnsignedString(record.correlationId()));
                } else {
                    sink.publish(RoctracerRecord.EXTERN, record);
                    stats.countBinding();
                }
                break;
            default:
                stats.countSkipped(RoctracerRecord.skipKey(domain, op));
        }
    }

    private void device(RecordSink sink, DecodeStats stats) {
        EventKind kind = record.eventKind();
        if (!times(record.begin(), record.end(), "HIP_OPS", stats)) {
            return;
        }
        String why = RecordLimits.device(record.deviceId());
        if (why == null && (record.queueId() < 0 || record.queueId() > Integer.MAX_VALUE)) {
            why = "queue id " + Long.toUnsignedString(record.queueId()) + " is not a queue index";
        }
        if (why != null) {
            stats.invalid("HIP_OPS record: " + why);
            return;
        }
        sink.publish(RoctracerRecord.OPS, record);
        stats.countPublished(kind);
    }

    /** Maps a record's interval to epoch ns into the record's startNs/endNs; false (counted) when implausible. */
    private boolean times(long begin, long end, String what, DecodeStats stats) {
        String why = RecordLimits.interval(begin, end);
        if (why == null) {
            long mappedStart = record.startNs = mapping.toEpoch(begin);
            long mappedEnd = record.endNs = mapping.toEpoch(end);
            if (mappedStart < plausibleFromNs || mappedEnd > plausibleToNs) {
                why = "[" + mappedStart + ", " + mappedEnd + "] lies outside the session's plausible span ["
                        + plausibleFromNs + ", " + plausibleToNs + "]";
            } else {
                why = RecordLimits.interval(mappedStart, mappedEnd);
            }
        }
        if (why != null) {
            stats.invalid(what + " record: " + why);
            return false;
        }
        return true;
    }
}
