package org.flagos.trace.vendors.family;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordNaming;
import org.flagos.trace.model.RecordLimits;
import org.flagos.trace.model.RecordSink;

/**
 * Walks a buffer of CUPTI-shaped records of the older versions ({@link CuptiShapedLayout}) in a
 * vendor's own clock, maps every time to epoch ns and publishes what it decodes. Bounded by the
 * buffer's valid size; a kind of unknown size or a record cut short ends the walk and the bytes
 * left are counted. A record whose times are implausible (zero, ending before they start, outside
 * the span {@link #clock} was given) is dropped and counted as invalid.
 */
public final class CuptiShapedDecoder implements ClockedDecoder {
    private final CuptiShapedLayout layout;
    private final ApiNames apiNames;
    private final Kernel6Record kernel;
    private final Memcpy4Record memcpy = new Memcpy4Record();
    private final Memset3Record memset = new Memset3Record();
    private final ApiRecord api = new ApiRecord();
    private final ExternalCorrelationRecord external = new ExternalCorrelationRecord();
    private DeviceClockMapping mapping = DeviceClockMapping.IDENTITY;
    private long plausibleFromNs = 1;
    private long plausibleToNs = Long.MAX_VALUE;
    /** The last plausible record's times in epoch ns, set by {@link #map}. */
    private long startNs;
    private long endNs;

    public CuptiShapedDecoder(CuptiShapedLayout layout, KernelNames kernelNames, NameTable table, ApiNames apiNames) {
        this.layout = layout;
        this.apiNames = apiNames;
        this.kernel = new Kernel6Record(RecordNaming.of(kernelNames));
    }

    /**
     * The span a replay believes: from the session's start (the mapping's epoch sample) less the
     * live slack to a day after it ({@link RecordLimits#MAX_SPAN_NS}: no capture runs longer). A
     * replay has no later clock sample, so a record the live session dropped for lying past its
     * last sample plus the slack is dropped here only when it lies past that day; the fake vendors'
     * far-future records do.
     */
    public void replayClock(DeviceClockMapping replayMapping) {
        if (replayMapping.isIdentity()) {
            clock(replayMapping, 1, Long.MAX_VALUE);
        } else {
            long from = replayMapping.epochNs() - VendorClock.SLACK_NS;
            clock(replayMapping, from, replayMapping.epochNs() + RecordLimits.MAX_SPAN_NS);
        }
    }

    @Override
    public void clock(DeviceClockMapping newMapping, long fromNs, long toNs) {
        this.mapping = newMapping;
        this.plausibleFromNs = fromNs;
        this.plausibleToNs = toNs;
    }

    @Override
    public ApiNames apiNames() {
        return apiNames;
    }

    @Override
    public void decode(ByteBuffer source, RecordSink sink, DecodeStats stats) {
        ByteBuffer buffer = source.order() == ByteOrder.LITTLE_ENDIAN ? source : source.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int base = buffer.position();
        int limit = buffer.limit();
        int pos = base;
        while (pos < limit) {
            if (limit - pos < Integer.BYTES) {
                stats.undecodable(limit - pos, layout.vendor() + " buffer ends with " + (limit - pos)
                        + " stray bytes at offset " + (pos - base));
                return;
            }
            int kind = buffer.getInt(pos);
            int size = layout.recordSize(kind);
            if (size < 0) {
                stats.undecodable(limit - pos, "unknown " + layout.vendor() + " activity kind " + kind + " at offset "
                        + (pos - base) + ": its size is unknown, rest of buffer (" + (limit - pos) + " bytes) skipped");
                return;
            }
            if (limit - pos < size) {
                stats.undecodable(limit - pos, layout.vendor() + " record of kind " + kind + " at offset " + (pos - base)
                        + " needs " + size + " bytes, buffer has " + (limit - pos));
                return;
            }
            decodeRecord(kind, buffer, pos, sink, stats);
            pos += size;
        }
    }

    private void decodeRecord(int kind, ByteBuffer buffer, int pos, RecordSink sink, DecodeStats stats) {
        if (layout.isKernel(kind)) {
            kernel.wrap(buffer, pos);
            if (map(kernel.start(), kernel.end(), kernel.deviceId(), "kernel", stats)) {
                kernel.startNs = startNs;
                kernel.endNs = endNs;
                long queued = kernel.queued();
                kernel.queuedNs = queued == 0 ? 0 : mapping.toEpoch(queued);
                sink.publish(Kernel6Record.TRANSLATOR, kernel);
                stats.countPublished(EventKind.KERNEL);
            }
        } else if (kind == layout.memcpyKind()) {
            memcpy.wrap(buffer, pos);
            if (map(memcpy.start(), memcpy.end(), memcpy.deviceId(), "memcpy", stats)) {
                memcpy.startNs = startNs;
                memcpy.endNs = endNs;
                sink.publish(Memcpy4Record.TRANSLATOR, memcpy);
                stats.countPublished(EventKind.MEMCPY);
            }
        } else if (kind == layout.memsetKind()) {
            memset.wrap(buffer, pos);
            if (map(memset.start(), memset.end(), memset.deviceId(), "memset", stats)) {
                memset.startNs = startNs;
                memset.endNs = endNs;
                sink.publish(Memset3Record.TRANSLATOR, memset);
                stats.countPublished(EventKind.MEMSET);
            }
        } else if (kind == layout.runtimeKind() || kind == layout.driverKind()) {
            EventKind eventKind = kind == layout.runtimeKind() ? EventKind.RUNTIME : EventKind.DRIVER;
            api.wrap(buffer, pos, eventKind);
            if (map(api.start(), api.end(), 0, "API", stats)) {
                api.startNs = startNs;
                api.endNs = endNs;
                sink.publish(ApiRecord.TRANSLATOR, api);
                stats.countPublished(eventKind);
            }
        } else if (kind == layout.externalCorrelationKind()) {
            external.wrap(buffer, pos);
            if (external.externalKind() != layout.customExternalKind()) {
                stats.countSkipped(kind); // another tool's external ids
            } else if (external.externalId() < 0) {
                stats.invalid("External id above 2^63 in correlation record " + external.correlationId());
            } else {
                sink.publish(ExternalCorrelationRecord.TRANSLATOR, external);
                stats.countBinding();
            }
        } else {
            stats.countSkipped(kind);
        }
    }

    /** Maps [start, end] into {@link #startNs}/{@link #endNs}; false (counted) when the record is implausible. */
    private boolean map(long start, long end, long device, String what, DecodeStats stats) {
        if (start == 0 || end == 0) {
            stats.invalid(what + " record without a timestamp (start " + Long.toUnsignedString(start) + ", end "
                    + Long.toUnsignedString(end) + ")");
            return false;
        }
        if (Long.compareUnsigned(end, start) < 0) {
            stats.invalid(what + " record ends before it starts (vendor clock " + Long.toUnsignedString(start) + ", "
                    + Long.toUnsignedString(end) + ")");
            return false;
        }
        if (start < 0 || end < 0) {
            stats.invalid(what + " record at vendor time " + Long.toUnsignedString(start) + ", above 2^63");
            return false;
        }
        startNs = mapping.toEpoch(start);
        endNs = mapping.toEpoch(end);
        if (startNs < plausibleFromNs || endNs > plausibleToNs) {
            stats.invalid(what + " record at vendor time " + Long.toUnsignedString(start) + " maps outside the session ("
                    + startNs + " not in [" + plausibleFromNs + ", " + plausibleToNs + "])");
            return false;
        }
        String why = RecordLimits.interval(startNs, endNs);
        if (why == null) {
            why = RecordLimits.device(device);
        }
        if (why != null) {
            stats.invalid(what + " record: " + why);
            return false;
        }
        return true;
    }
}
