package org.flagos.trace.stages;

import java.io.IOException;
import org.flagos.trace.model.TraceRecord;

/**
 * One trace format: encodes what {@link TraceWalk} hands it, in the order the walk hands it, and
 * nothing else. The walk owns everything every format shares (which records are written, when a
 * host op settles and on which row, when a flow arrow is complete, the summary, the accounting); a
 * sink owns only its bytes and the state its encoding needs (interned strings, tracks, row labels).
 * Names are read from the capture's {@link org.flagos.trace.model.NameTable}, never written.
 */
public interface TraceSink {
    /**
     * The row of a device's unified-memory records (migrations, page faults), named
     * {@code Unified Memory} and sorted after the device's streams: a tid no CUDA stream id of a
     * process reaches in practice (CUPTI numbers a context's streams from small integers up).
     */
    int UNIFIED_MEMORY_ROW = 0x7FFF_FFFE;

    /**
     * torch's row of a device's work that concerns no stream (a context or event synchronization,
     * stream -1): tid 1, named {@code Device N}, sorted first.
     */
    int DEVICE_ROW = 1;

    /**
     * The start of the document, before anything else: called once, at the first record written
     * (or at the end of a capture with none).
     *
     * @param baseNs the trace's base time, epoch ns: a format with relative times counts from it
     */
    void header(long baseNs) throws IOException;

    /** An API call (named, windowed, joined): one slice on its host thread's row. */
    void apiSlice(TraceRecord api) throws IOException;

    /**
     * A device record (kernel, copy, set, sync; named, windowed, joined): one slice on row {@code row}
     * of its device, as the walk decided it (its stream's row; a sync on no stream, stream -1, on
     * torch's device row, {@link TraceSink#DEVICE_ROW}). A format that keeps rows encodes that one.
     */
    void deviceSlice(TraceRecord device, int row) throws IOException;

    /**
     * A settled host op: one slice on the row its API calls ran on; or a closed annotation range
     * ({@link HostOpRow#annotation}: torch's {@code user_annotation}) on the row of its thread.
     */
    void hostOpSlice(HostOpRow op) throws IOException;

    /**
     * A settled op's span on one device stream (torch's {@code gpu_user_annotation}): one slice on the
     * stream's row, handed over right after the op's row and nested with the stream's other spans.
     */
    void gpuAnnotation(GpuAnnotationRow span) throws IOException;

    /** A device-memory allocation or release: torch's {@code [memory]} instant on a host thread. */
    void memoryInstant(MemoryRow memory) throws IOException;

    /** An annotation mark (NVTX's {@code nvtxMark}): an instant on the host thread that made it. */
    void markInstant(MarkRow mark) throws IOException;

    /**
     * A unified-memory record (named, windowed): on its device's {@code Unified Memory} row, a slice
     * when its counter lasts ({@link org.flagos.trace.model.UnifiedMemoryCounter#lasting}), else an instant.
     */
    void unifiedMemory(TraceRecord record) throws IOException;

    /** A flow arrow whose two slices were both handed over already. */
    void flow(FlowArrow arrow) throws IOException;

    /** Events {@link #flow} adds to the trace's event count (JSON: its two halves). */
    int eventsPerFlow();

    /** The ring had no more records for now: hand what is buffered to the stream. */
    void endOfBatch() throws IOException;

    /**
     * The end of the document: row labels, the capture span, the accounting, whatever the format
     * has of them; the stream is complete afterwards.
     *
     * @return the events the footer added to the trace (labels, span markers)
     */
    long footer(TraceFooter end) throws IOException;

    /**
     * What the vendor's profiling library spent on itself (named, windowed): one slice on the
     * profiler-overhead row, where torch draws it.
     */
    void overheadSlice(TraceRecord overhead) throws IOException;

    /**
     * The walk failed and will hand nothing more, the footer included: release what the format holds
     * beside the stream (scratch files, an embedded database). Called once, on the walk's thread;
     * must not throw. Formats that hold nothing but the stream do nothing.
     */
    default void abandon() {
    }
}
