package org.flagos.trace.vendors.mcpti;

import java.nio.ByteBuffer;
import java.util.List;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.LongIntHashMap;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordLimits;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.vendors.cupti.CuptiActivityKind;
import org.flagos.trace.vendors.cupti.CuptiBufferDecoder;
import org.flagos.trace.vendors.cupti.CuptiRecordLayout;
import org.flagos.trace.vendors.activity.RecordWalk;
import org.flagos.trace.vendors.family.ClockedDecoder;

/**
 * Scans an MCPTI activity buffer itself rather than through MCPTI's record iterator: MCPTI 3.8.0 can
 * return a stale iterator after external-correlation records (the seed, section 6.2). The scan
 * reads the buffer's aligned records back to back, bounded by its valid size, advancing by the whole
 * size of each record's kind ({@link #LAYOUT}); each record is then read by CUPTI's flyweights,
 * whose layouts MCPTI's records are assumed to follow.
 *
 * <p>A candidate is malformed when its kind is not one MCPTI writes, its timestamps are impossible
 * (one of start/end zero and not the other, or end before start, or longer than a day), or an
 * external-correlation record names no external kind. The scan then resynchronizes: it skips 8 bytes
 * (the record alignment) and tries again, and each run of skipped bytes is counted ({@link
 * #resyncs()}, {@link #resyncedBytes()}, and as undecodable bytes in {@link DecodeStats}). A
 * record of a known kind that runs past the valid size ends the scan (the rest is counted), since
 * bytes inside a cut record must not be read as records. Records with start == end == 0 are MCPTI's
 * "timing unavailable" sentinel: skipped whole and counted ({@link #timingUnavailable()}).
 */
public final class McptiBufferDecoder implements ClockedDecoder {
    /** The record versions MCPTI is assumed to write: CUPTI 12.1's (Kernel9, Memcpy5, Memset4). */
    public static final CuptiRecordLayout LAYOUT = CuptiRecordLayout.CUPTI_12_1;
    private static final int ALIGNMENT = 8;
    private static final int MAX_TRACKED_CBIDS = 4096;
    private static final int NAMED = 1;
    private static final int UNNAMED = 2;

    private final CuptiBufferDecoder records;
    private final ApiNames apiNames;
    private final LongIntHashMap seenCbids = new LongIntHashMap(256, 0);
    private long timingUnavailable;
    private long resyncs;
    private long resyncedBytes;

    /**
     * @param kernelNames resolves kernel-name pointers (live memory, or the capture's name table)
     * @param table       the capture's interned names
     * @param devices     device properties; may be empty
     * @param apiNames    MCPTI's callback-id names (never resolved through the vendor here)
     */
    public McptiBufferDecoder(KernelNames kernelNames, NameTable table, List<DeviceProperties> devices,
                              McptiApiNames apiNames) {
        this.records = new CuptiBufferDecoder(kernelNames, table, devices, LAYOUT, apiNames);
        this.apiNames = apiNames;
    }

    /** The decoder of a saved capture ({@code .fltrbuf} vendor 6): kernel and API names from its name table. */
    public static McptiBufferDecoder forCapture(KernelNames names, NameTable table, List<DeviceProperties> devices,
                                                DeviceClockMapping clock) {
        McptiBufferDecoder decoder = new McptiBufferDecoder(names, table, devices, new McptiApiNames(names));
        decoder.clock(clock, Long.MIN_VALUE, Long.MAX_VALUE);
        return decoder;
    }

    @Override
    public void clock(DeviceClockMapping mapping, long plausibleFromNs, long plausibleToNs) {
        records.clock(mapping, plausibleFromNs, plausibleToNs);
    }

    @Override
    public ApiNames apiNames() {
        return apiNames;
    }

    @Override
    public void decode(ByteBuffer source, RecordSink sink, DecodeStats stats) {
        ByteBuffer buffer = RecordWalk.littleEndian(source);
        int base = buffer.position();
        int limit = buffer.limit();
        int pos = base;
        int runStart = -1;
        int runKind = 0;
        while (pos < limit) {
            if (limit - pos < ALIGNMENT) {
                closeRun(runStart, pos, runKind, base, stats);
                stats.undecodable(limit - pos, "MCPTI buffer ends with " + (limit - pos) + " stray bytes at offset " + (pos - base));
                return;
            }
            int kind = buffer.getInt(pos);
            int size = LAYOUT.recordSize(kind);
            if (size > 0 && !writtenByMcpti(kind)) {
                size = -1;
            }
            if (size > 0 && limit - pos < size) {
                closeRun(runStart, pos, runKind, base, stats);
                stats.undecodable(limit - pos, "MCPTI record of kind " + kind + " at offset " + (pos - base)
                        + " needs " + size + " bytes, buffer has " + (limit - pos));
                return;
            }
            if (size < 0 || !wellFormed(kind, buffer, pos)) {
                if (runStart < 0) {
                    runStart = pos;
                    runKind = kind;
                }
                pos += ALIGNMENT;
                continue;
            }
            closeRun(runStart, pos, runKind, base, stats);
            runStart = -1;
            if (timingUnavailable(kind, buffer, pos)) {
                timingUnavailable++;
            } else {
                noteCbid(kind, buffer, pos);
                records.decodeRecord(kind, buffer, pos, sink, stats);
            }
            pos += size;
        }
        closeRun(runStart, pos, runKind, base, stats);
    }

    private void closeRun(int runStart, int pos, int firstKind, int base, DecodeStats stats) {
        if (runStart < 0) {
            return;
        }
        int skipped = pos - runStart;
        resyncs++;
        resyncedBytes += skipped;
        stats.undecodable(skipped, "MCPTI scan resynchronized over " + skipped + " bytes at offset " + (runStart - base)
                + " (first candidate: unknown MCPTI activity kind or malformed record of kind " + firstKind + ")");
    }

    private static boolean writtenByMcpti(int kind) {
        return kind == CuptiActivityKind.MEMCPY || kind == CuptiActivityKind.MEMSET || kind == CuptiActivityKind.KERNEL
                || kind == CuptiActivityKind.CONCURRENT_KERNEL || kind == CuptiActivityKind.DRIVER || kind == CuptiActivityKind.RUNTIME
                || kind == CuptiActivityKind.EXTERNAL_CORRELATION;
    }

    /** Offset of a record's start time, or -1 for a kind without times. */
    private static int startOffset(int kind) {
        return switch (kind) {
            case CuptiActivityKind.DRIVER, CuptiActivityKind.RUNTIME -> 8;
            case CuptiActivityKind.EXTERNAL_CORRELATION -> -1;
            default -> 16;
        };
    }

    private static boolean wellFormed(int kind, ByteBuffer buffer, int pos) {
        if (kind == CuptiActivityKind.EXTERNAL_CORRELATION) {
            int externalKind = buffer.getInt(pos + 4);
            return externalKind >= 0 && externalKind <= McptiKinds.LAST_EXTERNAL_KIND;
        }
        int at = startOffset(kind);
        long start = buffer.getLong(pos + at);
        long end = buffer.getLong(pos + at + 8);
        if (start == 0 && end == 0) {
            return true;
        }
        return start > 0 && end >= start && end - start <= RecordLimits.MAX_SPAN_NS;
    }

    private static boolean timingUnavailable(int kind, ByteBuffer buffer, int pos) {
        int at = startOffset(kind);
        return at >= 0 && buffer.getLong(pos + at) == 0 && buffer.getLong(pos + at + 8) == 0;
    }

    /** Remembers each API cbid's first sight, and which ones the names did not resolve. */
    private void noteCbid(int kind, ByteBuffer buffer, int pos) {
        if (kind != CuptiActivityKind.RUNTIME && kind != CuptiActivityKind.DRIVER) {
            return;
        }
        EventKind eventKind = kind == CuptiActivityKind.DRIVER ? EventKind.DRIVER : EventKind.RUNTIME;
        int cbid = buffer.getInt(pos + 4);
        long handle = McptiApiNames.handle(eventKind, cbid);
        if (seenCbids.get(handle) != 0 || seenCbids.size() >= MAX_TRACKED_CBIDS) {
            return;
        }
        seenCbids.put(handle, apiNames.name(eventKind, cbid) == null ? UNNAMED : NAMED);
    }

    /**
     * The {@code ApiNameHandle}s of the API ids this decoder saw whose names were not known when it
     * first saw them (at most {@value #MAX_TRACKED_CBIDS} distinct ids are tracked).
     */
    public long[] unnamedSeen() {
        long[] out = new long[seenCbids.size()];
        int[] n = new int[1];
        seenCbids.forEach((handle, state) -> {
            if (state == UNNAMED) {
                out[n[0]++] = handle;
            }
        });
        return java.util.Arrays.copyOf(out, n[0]);
    }

    /** Records skipped because MCPTI reported start == end == 0 ("timing unavailable"). */
    public long timingUnavailable() {
        return timingUnavailable;
    }

    /** Runs of malformed bytes the scan resynchronized over. */
    public long resyncs() {
        return resyncs;
    }

    /** Bytes skipped while resynchronizing. */
    public long resyncedBytes() {
        return resyncedBytes;
    }
}
