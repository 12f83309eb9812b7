package org.flagos.trace.vendors.mspti;

import com.lmax.disruptor.EventHandler;
import java.nio.ByteBuffer;
import java.util.List;
import org.flagos.trace.model.ActivityBufferDecoder;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordLimits;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.vendors.activity.RecordWalk;
import org.flagos.trace.vendors.cupti.CuptiExternalCorrelationDecoder;

/**
 * Walks an MSPTI activity buffer record by record (records back to back, each {@code sizeof} its
 * struct, as MSPTI's {@code ActivityBuffer::Record} writes them) and publishes what it decodes:
 * kernels, copies, memsets, API calls of the four API kinds, and external-correlation bindings.
 * Other kinds (marker, HCCL, memory, communication) are counted as skipped. The walk is bounded by
 * the buffer's valid size; an unknown kind or a record cut short ends it and the rest is counted.
 *
 * <p>Times are MSPTI's epoch nanoseconds, used as they are. Correlation ids stay MSPTI's 64-bit
 * ones here; {@link MsptiCorrelationRemap}, returned by {@link #stages()}, turns them into flow ids.
 */
public final class MsptiBufferDecoder implements ActivityBufferDecoder {
    private final MsptiStrings strings;
    private final NameTable table;
    private final AscendDevices devices;
    private final MsptiApiRecord api = new MsptiApiRecord();
    private final MsptiKernelRecord kernel = new MsptiKernelRecord();
    private final MsptiMemcpyRecord memcpy = new MsptiMemcpyRecord();
    private final MsptiMemsetRecord memset = new MsptiMemsetRecord();
    private final CuptiExternalCorrelationDecoder external = CuptiExternalCorrelationDecoder.wideCorrelation(
            "msptiActivityExternalCorrelation", MsptiActivityKind.EXTERNAL_KIND_CUSTOM0);
    private final RecordWalk walk = new RecordWalk("MSPTI", MsptiActivityKind::recordSize, "");

    /**
     * A decoder for a replay: names and the device mapping come from the capture's name table.
     *
     * @param strings the capture's name table ({@code NAME.names.tsv}): every string pointer the
     *                records hold, and the saved device ordinals
     * @param table   the capture's interned names
     */
    public MsptiBufferDecoder(KernelNames strings, NameTable table) {
        this(strings, table, AscendDevices.saved(strings));
    }

    MsptiBufferDecoder(KernelNames strings, NameTable table, AscendDevices devices) {
        this.strings = new MsptiStrings(strings);
        this.table = table;
        kernel.naming = this.strings;
        api.naming = this.strings;
        this.devices = devices;
    }

    @Override
    public ApiNames apiNames() {
        return MsptiApiNames.INSTANCE;
    }

    /** The correlation remap, fresh for each capture. */
    @Override
    public List<EventHandler<TraceRecord>> stages() {
        return List.of(new MsptiCorrelationRemap(table::name));
    }

    @Override
    public void decode(ByteBuffer source, RecordSink sink, DecodeStats stats) {
        ByteBuffer buffer = walk.start(source, stats);
        for (int pos = walk.next(); pos >= 0; pos = walk.next()) {
            decodeRecord(walk.kind(), buffer, pos, sink, stats);
        }
    }

    private void decodeRecord(int kind, ByteBuffer buffer, int pos, RecordSink sink, DecodeStats stats) {
        switch (kind) {
            case MsptiActivityKind.KERNEL:
                kernel.wrap(buffer, pos);
                if (valid(kernel.start(), kernel.end(), kernel.deviceId(), "kernel", stats)) {
                    kernel.logicalDevice = devices.logical(kernel.deviceId());
                    strings.kernelType(kernel.typePointer());
                    sink.publish(MsptiKernelRecord.TRANSLATOR, kernel);
                    stats.countPublished(EventKind.KERNEL);
                }
                break;
            case MsptiActivityKind.MEMCPY:
                memcpy.wrap(buffer, pos);
                if (valid(memcpy.start(), memcpy.end(), memcpy.deviceId(), "memcpy", stats)) {
                    memcpy.logicalDevice = devices.logical(memcpy.deviceId());
                    sink.publish(MsptiMemcpyRecord.TRANSLATOR, memcpy);
                    stats.countPublished(EventKind.MEMCPY);
                }
                break;
            case MsptiActivityKind.MEMSET:
                memset.wrap(buffer, pos);
                if (valid(memset.start(), memset.end(), memset.deviceId(), "memset", stats)) {
                    memset.logicalDevice = devices.logical(memset.deviceId());
                    sink.publish(MsptiMemsetRecord.TRANSLATOR, memset);
                    stats.countPublished(EventKind.MEMSET);
                }
                break;
            case MsptiActivityKind.API:
            case MsptiActivityKind.ACL_API:
            case MsptiActivityKind.NODE_API:
            case MsptiActivityKind.RUNTIME_API:
                api.wrap(buffer, pos);
                if (valid(api.start(), api.end(), 0, "API", stats)) {
                    sink.publish(MsptiApiRecord.TRANSLATOR, api);
                    stats.countPublished(EventKind.RUNTIME);
                }
                break;
            case MsptiActivityKind.EXTERNAL_CORRELATION:
                external.wrap(buffer, pos).publish(kind, sink, stats); // CUPTI's record but for a 64-bit correlation id
                break;
            default:
                stats.countSkipped(kind);
        }
    }

    private static boolean valid(long start, long end, long device, String what, DecodeStats stats) {
        if (start == 0 && end == 0) {
            stats.incomplete(); // MSPTI: both 0 means the timestamps could not be collected
            return false;
        }
        return RecordLimits.admit(start, end, device, what, stats);
    }
}
