package org.flagos.trace.vendors.cupti;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.flagos.trace.model.ActivityBufferDecoder;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordLimits;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.vendors.family.LiveKernelNames;

/**
 * Walks a CUPTI activity buffer record by record and publishes what it decodes. The walk is
 * bounded by the buffer's valid size (its limit), never by a count of records, and every record is
 * bounds-checked before it is read; a record kind of unknown size or a record cut short ends the
 * walk of that buffer, and the bytes left are counted, never guessed at.
 *
 * <p>By default the records are NVIDIA's CUPTI 13.0 records in epoch ns. A CUPTI-compatible vendor
 * library (PPU's, MetaX's MCPTI) may write another {@link CuptiRecordLayout} and keep its own
 * device clock: {@link #clock} then maps every time to epoch ns before it is checked and published,
 * and a record outside the session's plausible span is dropped and counted as invalid.
 */
public final class CuptiBufferDecoder implements ActivityBufferDecoder {
    private final CuptiRecordLayout layout;
    private final ApiNames apiNames;
    private final CuptiTimes times = new CuptiTimes();
    private final CuptiKernel10Decoder kernel;
    private final CuptiMemcpy6Decoder memcpy;
    private final CuptiMemset4Decoder memset = new CuptiMemset4Decoder(times);
    private final CuptiApiDecoder api = new CuptiApiDecoder(times);
    private final CuptiExternalCorrelationDecoder external = new CuptiExternalCorrelationDecoder();

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
     * A decoder of CUPTI-shaped buffers of another layout or API namespace.
     *
     * @param layout   the record versions the buffers hold
     * @param apiNames the callback-id namespace of the API records
     */
    public CuptiBufferDecoder(KernelNames kernelNames, NameTable table, List<DeviceProperties> devices,
                              CuptiRecordLayout layout, ApiNames apiNames) {
        this.layout = layout;
        this.apiNames = apiNames;
        this.kernel = new CuptiKernel10Decoder(new CuptiRecordNaming(kernelNames, new CuptiKernelMetrics(devices)), layout, times);
        this.memcpy = new CuptiMemcpy6Decoder(layout, times);
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
    public void clock(DeviceClockMapping mapping, long plausibleFromNs, long plausibleToNs) {
        times.set(mapping, plausibleFromNs, plausibleToNs);
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
        ByteBuffer buffer = source.order() == ByteOrder.LITTLE_ENDIAN ? source : source.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int base = buffer.position();
        int limit = buffer.limit();
        int pos = base;
        while (pos < limit) {
            if (limit - pos < Integer.BYTES) {
                stats.undecodable(limit - pos, "CUPTI buffer ends with " + (limit - pos) + " stray bytes at offset " + (pos - base));
                return;
            }
            int kind = buffer.getInt(pos);
            int size = layout.recordSize(kind);
            if (size < 0) {
                stats.undecodable(limit - pos, "unknown CUPTI activity kind " + kind + " at offset " + (pos - base)
                        + ": its size is unknown to layout " + layout + ", rest of buffer ("
                        + (limit - pos) + " bytes) skipped");
                return;
            }
            if (limit - pos < size) {
                stats.undecodable(limit - pos, "CUPTI record of kind " + kind + " at offset " + (pos - base)
                        + " needs " + size + " bytes, buffer has " + (limit - pos));
                return;
            }
            decodeRecord(kind, buffer, pos, sink, stats);
            pos += size;
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
                if (valid(kernel.rawStart(), kernel.start(), kernel.end(), kernel.deviceId(), "kernel", stats)) {
                    sink.publish(CuptiKernel10Decoder.TRANSLATOR, kernel);
                    stats.countPublished(EventKind.KERNEL);
                }
                break;
            case CuptiActivityKind.MEMCPY:
                memcpy.wrap(buffer, pos);
                if (valid(memcpy.rawStart(), memcpy.start(), memcpy.end(), memcpy.deviceId(), "memcpy", stats)) {
                    sink.publish(CuptiMemcpy6Decoder.TRANSLATOR, memcpy);
                    stats.countPublished(EventKind.MEMCPY);
                }
                break;
            case CuptiActivityKind.MEMSET:
                memset.wrap(buffer, pos);
                if (valid(memset.rawStart(), memset.start(), memset.end(), memset.deviceId(), "memset", stats)) {
                    sink.publish(CuptiMemset4Decoder.TRANSLATOR, memset);
                    stats.countPublished(EventKind.MEMSET);
                }
                break;
            case CuptiActivityKind.RUNTIME:
            case CuptiActivityKind.DRIVER:
                api.wrap(buffer, pos);
                if (valid(api.rawStart(), api.start(), api.end(), 0, "API", stats)) {
                    sink.publish(CuptiApiDecoder.TRANSLATOR, api);
                    stats.countPublished(kind == CuptiActivityKind.DRIVER
                            ? EventKind.DRIVER : EventKind.RUNTIME);
                }
                break;
            case CuptiActivityKind.EXTERNAL_CORRELATION:
                external.wrap(buffer, pos);
                if (external.externalKind() != CuptiExternalCorrelationDecoder.CUSTOM0) {
                    stats.countSkipped(kind); // another tool's external ids (CUSTOM1, OpenACC, ...)
                } else if (external.externalId() < 0) {
                    stats.invalid("External id above 2^63 in correlation record " + external.correlationId());
                } else {
                    sink.publish(CuptiExternalCorrelationDecoder.TRANSLATOR, external);
                    stats.countBinding();
                }
                break;
            default:
                stats.countSkipped(kind);
        }
    }

    private boolean valid(long rawStart, long start, long end, long device, String what, DecodeStats stats) {
        if (rawStart == 0) {
            // CUPTI's "timestamp unknown": a forced flush (at stop) returns records of work still in
            // flight with zero timestamps. Seen on the H200 when launches race a session's stop.
            stats.incomplete();
            return false;
        }
        String why = RecordLimits.interval(start, end);
        if (why == null) {
            why = RecordLimits.device(device);
        }
        if (why == null) {
            why = times.implausible(start, end);
        }
        if (why != null) {
            stats.invalid(what + " record: " + why);
            return false;
        }
        return true;
    }
}
