package org.flagos.trace.vendors.cupti;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.flagos.trace.pipeline.ActivityBufferDecoder;
import org.flagos.trace.pipeline.ApiNames;
import org.flagos.trace.pipeline.DecodeStats;
import org.flagos.trace.pipeline.DeviceProperties;
import org.flagos.trace.pipeline.EventKind;
import org.flagos.trace.pipeline.KernelNames;
import org.flagos.trace.pipeline.NameTable;
import org.flagos.trace.pipeline.RecordLimits;
import org.flagos.trace.pipeline.RecordSink;

/**
 * Walks a CUPTI 13.0 activity buffer record by record and publishes what it decodes. The walk is
 * bounded by the buffer's valid size (its limit) and every record is bounds-checked before it is
 * read; a record kind of unknown size or a record cut short ends the walk of that buffer, and the
 * bytes left are counted, never guessed at.
 */
public final class CuptiBufferDecoder implements ActivityBufferDecoder {
    private final CuptiKernelNameCache names;
    private final CuptiKernel10Decoder kernel;
    private final CuptiMemcpy6Decoder memcpy = new CuptiMemcpy6Decoder();
    private final CuptiMemset4Decoder memset = new CuptiMemset4Decoder();
    private final CuptiApiDecoder api = new CuptiApiDecoder();
    private final CuptiExternalCorrelationDecoder external = new CuptiExternalCorrelationDecoder();

    /**
     * @param kernelNames resolves kernel name pointers (the capture's name table, or live memory)
     * @param table       the capture's interned names
     * @param devices     device properties for occupancy figures; may be empty
     */
    public CuptiBufferDecoder(KernelNames kernelNames, NameTable table, List<DeviceProperties> devices) {
        this.names = new CuptiKernelNameCache(kernelNames, table);
        this.kernel = new CuptiKernel10Decoder(names, new CuptiKernelMetrics(devices));
    }

    @Override
    public ApiNames apiNames() {
        return CuptiApiNames.INSTANCE;
    }

    @Override
    public void decode(ByteBuffer source, RecordSink sink, DecodeStats stats) {
        ByteBuffer buffer = source.order() == ByteOrder.LITTLE_ENDIAN ? source : source.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        names.stats(stats);
        int base = buffer.position();
        int limit = buffer.limit();
        int pos = base;
        while (pos < limit) {
            if (limit - pos < Integer.BYTES) {
                stats.undecodable(limit - pos, "CUPTI buffer ends with " + (limit - pos) + " stray bytes at offset " + (pos - base));
                return;
            }
            int kind = buffer.getInt(pos);
            int size = CuptiActivityKind.recordSize(kind);
            if (size < 0) {
                stats.undecodable(limit - pos, "unknown CUPTI activity kind " + kind + " at offset " + (pos - base)
                        + ": its size is unknown to layout " + CuptiActivityKind.API_VERSION + ", rest of buffer ("
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

    private void decodeRecord(int kind, ByteBuffer buffer, int pos, RecordSink sink, DecodeStats stats) {
        switch (kind) {
            case CuptiActivityKind.KERNEL:
            case CuptiActivityKind.CONCURRENT_KERNEL:
                kernel.wrap(buffer, pos);
                if (valid(kernel.start(), kernel.end(), kernel.deviceId(), "kernel", stats)) {
                    sink.publish(CuptiKernel10Decoder.TRANSLATOR, kernel);
                    stats.countPublished(EventKind.KERNEL);
                }
                break;
            case CuptiActivityKind.MEMCPY:
                memcpy.wrap(buffer, pos);
                if (valid(memcpy.start(), memcpy.end(), memcpy.deviceId(), "memcpy", stats)) {
                    sink.publish(CuptiMemcpy6Decoder.TRANSLATOR, memcpy);
                    stats.countPublished(EventKind.MEMCPY);
                }
                break;
            case CuptiActivityKind.MEMSET:
                memset.wrap(buffer, pos);
                if (valid(memset.start(), memset.end(), memset.deviceId(), "memset", stats)) {
                    sink.publish(CuptiMemset4Decoder.TRANSLATOR, memset);
                    stats.countPublished(EventKind.MEMSET);
                }
                break;
            case CuptiActivityKind.RUNTIME:
            case CuptiActivityKind.DRIVER:
                api.wrap(buffer, pos);
                if (valid(api.start(), api.end(), 0, "API", stats)) {
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

    private static boolean valid(long start, long end, long device, String what, DecodeStats stats) {
        if (start == 0) {
            // CUPTI's "timestamp unknown": a forced flush (at stop) returns records of work still in
            // flight with zero timestamps. Seen on the H200 when launches race a session's stop.
            stats.incomplete();
            return false;
        }
        String why = RecordLimits.interval(start, end);
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
