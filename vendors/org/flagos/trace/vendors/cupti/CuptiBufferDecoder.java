package org.flagos.trace.vendors.cupti;

import java.nio.ByteBuffer;
import java.util.List;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordLimits;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.vendors.activity.RecordWalk;
import org.flagos.trace.vendors.family.ClockedDecoder;
import org.flagos.trace.vendors.family.LiveKernelNames;
import org.flagos.trace.vendors.family.VendorClock;

/**
 * The one decoder of CUPTI-shaped buffers (NVIDIA's CUPTI, PPU, MCPTI's records, MUPTI, TOPSPTI):
 * walks a buffer record by record and publishes what it decodes. The walk is bounded by the
 * buffer's valid size (its limit), never by a count of records, and every record is bounds-checked
 * before it is read; a record kind of unknown size or a record cut short ends the walk of that
 * buffer, and the bytes left are counted, never guessed at.
 *
 * <p>What differs between vendors is data: the row of {@link CuptiRecordLayout} the buffers follow
 * (the record versions, so the stride of each kind) and the policy of their times ({@link
 * CuptiRecordTimes} for CUPTI's epoch ns or a CUPTI-compatible library's clock; {@link
 * VendorClockTimes} for a vendor's own device clock read as unsigned). {@link #clock} maps every
 * time to epoch ns before it is checked and published; a record outside the session's plausible
 * span is dropped and counted as invalid.
 */
public final class CuptiBufferDecoder implements ClockedDecoder {
    private final CuptiRecordLayout layout;
    /** The walk over this layout's record sizes, in the wording each vendor's problems have always had. */
    private final RecordWalk walk;
    private final ApiNames apiNames;
    private final CuptiTimes times;
    private final CuptiKernelDecoder kernel;
    private final CuptiMemcpyDecoder memcpy;
    private final CuptiMemsetDecoder memset;
    private final CuptiApiDecoder api;
    private final CuptiExternalCorrelationDecoder external = new CuptiExternalCorrelationDecoder();
    private final CuptiSynchronizationDecoder sync;
    private final CuptiOverheadDecoder overhead;
    private final CuptiContextDevices contextDevices = new CuptiContextDevices();
    private final CuptiMemoryDecoder memory;
    private final CuptiMarkerDecoder marker;
    private final CuptiMarkerDataDecoder markerData;
    private final CuptiUnifiedMemoryDecoder unifiedMemory;
    private final CuptiPeerCopyDecoder peerCopy;

    /**
     * A decoder of NVIDIA CUPTI 13.0 buffers in epoch ns.
     *
     * @param kernelNames resolves kernel name pointers (the capture's name table, or live memory)
     * @param table       the capture's interned names (the name stage interns into it, not the decoder)
     * @param devices     device properties for occupancy figures; may be empty
     */
    public CuptiBufferDecoder(KernelNames kernelNames, NameTable table, List<DeviceProperties> devices) {
        this(kernelNames, table, devices, CuptiRecordLayout.CUPTI_13_0, CuptiApiNames.INSTANCE);
    }

    /**
     * A decoder of CUPTI-compatible buffers (CUPTI's times) of another layout or API namespace.
     *
     * @param layout   the record versions the buffers hold
     * @param apiNames the callback-id namespace of the API records
     */
    public CuptiBufferDecoder(KernelNames kernelNames, NameTable table, List<DeviceProperties> devices,
                              CuptiRecordLayout layout, ApiNames apiNames) {
        this("CUPTI", layout, new CuptiRecordTimes(), " to layout " + layout, kernelNames, table, devices, apiNames);
    }

    private CuptiBufferDecoder(String vendor, CuptiRecordLayout layout, CuptiTimes times, String sizeUnknown,
                               KernelNames kernelNames, NameTable table, List<DeviceProperties> devices,
                               ApiNames apiNames) {
        this.layout = layout;
        this.walk = new RecordWalk(vendor, layout::recordSize, sizeUnknown);
        this.times = times;
        this.apiNames = apiNames;
        CuptiRecordNaming naming = new CuptiRecordNaming(kernelNames, new CuptiKernelMetrics(devices));
        this.kernel = new CuptiKernelDecoder(naming, layout, times);
        this.memcpy = new CuptiMemcpyDecoder(layout, times);
        this.memset = new CuptiMemsetDecoder(layout, times);
        this.api = new CuptiApiDecoder(times);
        this.sync = new CuptiSynchronizationDecoder(layout, times);
        this.overhead = new CuptiOverheadDecoder(layout, times);
        this.memory = new CuptiMemoryDecoder(layout, times);
        this.marker = new CuptiMarkerDecoder(layout, times, naming);
        this.markerData = new CuptiMarkerDataDecoder(layout);
        this.unifiedMemory = new CuptiUnifiedMemoryDecoder(layout, times);
        this.peerCopy = new CuptiPeerCopyDecoder(layout, times);
    }

    /**
     * A decoder of a vendor whose CUPTI-shaped records carry its own device clock ({@link
     * VendorClockTimes}); the tracer sets the clock before each buffer, a replay with {@link
     * #replayClock}.
     *
     * @param vendor the vendor's name in problems reported ({@code MUPTI})
     */
    public static CuptiBufferDecoder vendorClock(String vendor, CuptiRecordLayout layout, KernelNames kernelNames,
                                                 NameTable table, ApiNames apiNames) {
        return new CuptiBufferDecoder(vendor, layout, new VendorClockTimes(), "", kernelNames, table, List.of(), apiNames);
    }

    /**
     * The decoder of a saved capture's CUPTI buffers ({@code .fltrbuf} vendor 1): NVIDIA's in epoch
     * ns, or a CUPTI-compatible vendor's with its own clock (PPU), whose saved mapping ({@code
     * NAME.clock.json}) places the records where the live session did.
     */
    public static CuptiBufferDecoder forCapture(KernelNames kernelNames, NameTable table, List<DeviceProperties> devices,
                                                DeviceClockMapping clock) {
        CuptiBufferDecoder decoder = new CuptiBufferDecoder(kernelNames, table, devices);
        decoder.clock(clock, Long.MIN_VALUE, Long.MAX_VALUE);
        return decoder;
    }

    /** CUPTI's runtime and driver callback-id namespace (NVIDIA's and every CUPTI-compatible library's). */
    public static ApiNames cudaApiNames() {
        return CuptiApiNames.INSTANCE;
    }

    /** A resolver of live kernel-name pointers that also saves each name into {@code tap}. */
    public static KernelNames liveKernelNames(org.flagos.trace.model.BufferTap tap) {
        return new LiveKernelNames(tap);
    }

    /**
     * The clock of the buffers decoded next: their times are mapped by {@code mapping}, and a record
     * outside {@code [plausibleFromNs, plausibleToNs]} (epoch ns) is dropped and counted as invalid.
     */
    @Override
    public void clock(DeviceClockMapping mapping, long plausibleFromNs, long plausibleToNs) {
        times.set(mapping, plausibleFromNs, plausibleToNs);
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

    /** The record versions this decoder reads. */
    public CuptiRecordLayout layout() {
        return layout;
    }

    @Override
    public ApiNames apiNames() {
        return apiNames;
    }

    @Override
    public void decode(ByteBuffer source, RecordSink sink, DecodeStats stats) {
        ByteBuffer buffer = walk.start(source, stats);
        for (int pos = walk.next(); pos >= 0; pos = walk.next()) {
            decodeRecord(walk.kind(), buffer, pos, sink, stats);
        }
    }

    /**
     * Decodes the one record of {@code kind} at {@code pos} (which must hold {@link
     * CuptiRecordLayout#recordSize} bytes before the limit): for a vendor that walks its buffers
     * itself (MCPTI's scanner). {@code buffer} must be little-endian.
     */
    public void decodeRecord(int kind, ByteBuffer buffer, int pos, RecordSink sink, DecodeStats stats) {
        switch (kind) {
            case CuptiActivityKind.KERNEL:
            case CuptiActivityKind.CONCURRENT_KERNEL:
                kernel.wrap(buffer, pos);
                if (times.accept(kernel.rawStart(), kernel.rawEnd(), kernel.deviceId(), "kernel", stats)) {
                    contextDevices.note(kernel.contextId(), kernel.deviceId());
                    sink.publish(CuptiKernelDecoder.TRANSLATOR, kernel);
                    stats.countPublished(EventKind.KERNEL);
                }
                break;
            case CuptiActivityKind.MEMCPY:
                memcpy.wrap(buffer, pos);
                if (times.accept(memcpy.rawStart(), memcpy.rawEnd(), memcpy.deviceId(), "memcpy", stats)) {
                    contextDevices.note(memcpy.contextId(), memcpy.deviceId());
                    sink.publish(CuptiMemcpyDecoder.TRANSLATOR, memcpy);
                    stats.countPublished(EventKind.MEMCPY);
                }
                break;
            case CuptiActivityKind.MEMSET:
                memset.wrap(buffer, pos);
                if (times.accept(memset.rawStart(), memset.rawEnd(), memset.deviceId(), "memset", stats)) {
                    contextDevices.note(memset.contextId(), memset.deviceId());
                    sink.publish(CuptiMemsetDecoder.TRANSLATOR, memset);
                    stats.countPublished(EventKind.MEMSET);
                }
                break;
            case CuptiActivityKind.RUNTIME:
            case CuptiActivityKind.DRIVER:
                api.wrap(buffer, pos);
                if (times.accept(api.rawStart(), api.rawEnd(), 0, "API", stats)) {
                    sink.publish(CuptiApiDecoder.TRANSLATOR, api);
                    stats.countPublished(kind == CuptiActivityKind.DRIVER
                            ? EventKind.DRIVER : EventKind.RUNTIME);
                }
                break;
            case CuptiActivityKind.EXTERNAL_CORRELATION:
                external.wrap(buffer, pos).publish(kind, sink, stats);
                break;
            case CuptiActivityKind.SYNCHRONIZATION:
                sync.wrap(buffer, pos);
                sync.device = contextDevices.device(sync.contextId());
                if (times.accept(sync.rawStart(), sync.rawEnd(), sync.device, "synchronization", stats)) {
                    sink.publish(CuptiSynchronizationDecoder.TRANSLATOR, sync);
                    stats.countPublished(EventKind.SYNC);
                }
                break;
            case CuptiActivityKind.OVERHEAD:
                overhead.wrap(buffer, pos);
                if (times.accept(overhead.rawStart(), overhead.rawEnd(), 0, "overhead", stats)) {
                    sink.publish(CuptiOverheadDecoder.TRANSLATOR, overhead);
                    stats.countPublished(EventKind.OVERHEAD);
                }
                break;
            case CuptiActivityKind.MEMORY2:
                decodeMemory(buffer, pos, sink, stats);
                break;
            case CuptiActivityKind.MARKER:
                decodeMarker(buffer, pos, sink, stats);
                break;
            case CuptiActivityKind.UNIFIED_MEMORY_COUNTER:
                decodeUnifiedMemory(buffer, pos, sink, stats);
                break;
            case CuptiActivityKind.MARKER_DATA:
                if (layout.recordSize(kind) < 0) {
                    stats.countSkipped(kind); // a scanning vendor's walk sized it; this row cannot read it
                } else {
                    markerData.wrap(buffer, pos);
                    stats.annotationAttributes(); // colour, category, payload: torch's user_annotation has no field for them
                }
                break;
            case CuptiActivityKind.MEMCPY2:
                decodePeerCopy(buffer, pos, sink, stats);
                break;
            default:
                stats.countSkipped(kind);
        }
    }

    private void decodePeerCopy(ByteBuffer buffer, int pos, RecordSink sink, DecodeStats stats) {
        if (layout.peerCopySize < 0) {
            stats.countSkipped(CuptiActivityKind.MEMCPY2); // a scanning vendor's walk sized it; this row cannot read it
            return;
        }
        peerCopy.wrap(buffer, pos);
        if (times.accept(peerCopy.rawStart(), peerCopy.rawEnd(), peerCopy.deviceId(), "peer copy", stats)) {
            contextDevices.note(peerCopy.srcContextId(), peerCopy.srcDeviceId()); // both ends, as kineto learns them
            contextDevices.note(peerCopy.dstContextId(), peerCopy.dstDeviceId());
            contextDevices.note(peerCopy.contextId(), peerCopy.deviceId());
            sink.publish(CuptiPeerCopyDecoder.TRANSLATOR, peerCopy);
            stats.countPublished(EventKind.MEMCPY);
        }
    }

    private void decodeMarker(ByteBuffer buffer, int pos, RecordSink sink, DecodeStats stats) {
        if (layout.recordSize(CuptiActivityKind.MARKER) < 0) {
            stats.countSkipped(CuptiActivityKind.MARKER); // a scanning vendor's walk sized it; this row cannot read it
            return;
        }
        marker.wrap(buffer, pos);
        String why = marker.invalid();
        if (why != null) {
            stats.invalid(why);
        } else if (times.accept(marker.rawTimestamp(), marker.rawTimestamp(), 0, "marker", stats)) {
            sink.publish(CuptiMarkerDecoder.TRANSLATOR, marker);
            stats.countPublished(EventKind.MARKER);
        }
    }

    private void decodeUnifiedMemory(ByteBuffer buffer, int pos, RecordSink sink, DecodeStats stats) {
        if (layout.recordSize(CuptiActivityKind.UNIFIED_MEMORY_COUNTER) < 0) {
            stats.countSkipped(CuptiActivityKind.UNIFIED_MEMORY_COUNTER); // a scanning vendor's walk sized it; this row cannot read it
            return;
        }
        unifiedMemory.wrap(buffer, pos);
        String why = unifiedMemory.invalid();
        if (why != null) {
            stats.invalid(why);
        } else if (times.accept(unifiedMemory.rawStart(), unifiedMemory.lasting() ? unifiedMemory.rawEnd() : unifiedMemory.rawStart(),
                unifiedMemory.deviceId(), "unified memory", stats)) {
            sink.publish(CuptiUnifiedMemoryDecoder.TRANSLATOR, unifiedMemory);
            stats.countPublished(EventKind.UNIFIED_MEMORY);
        }
    }

    private void decodeMemory(ByteBuffer buffer, int pos, RecordSink sink, DecodeStats stats) {
        if (layout.memorySize < 0) {
            stats.countSkipped(CuptiActivityKind.MEMORY2); // a scanning vendor's walk sized it; this row cannot read it
            return;
        }
        memory.wrap(buffer, pos);
        String why = memory.invalid();
        if (why != null) {
            stats.invalid(why);
        } else if (times.accept(memory.rawTimestamp(), memory.rawTimestamp(), memory.deviceId(), "memory", stats)) {
            sink.publish(CuptiMemoryDecoder.TRANSLATOR, memory);
            stats.countPublished(EventKind.MEMORY);
        }
    }
}
