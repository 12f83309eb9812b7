package org.flagos.trace.model;

/**
 * Which point of an annotation a {@link EventKind#MARKER} record is (NVTX through CUPTI's MARKER
 * records): a range opening, a range closing, or a mark with no duration. A range's two ends carry
 * the same {@link TraceRecord#markerId}; only the opening one carries the name.
 */
public enum MarkerPhase {
    /** A range opens ({@code nvtxRangePush}, {@code nvtxRangeStart}). */
    START,
    /** A range closes ({@code nvtxRangePop}, {@code nvtxRangeEnd}). */
    END,
    /** A mark: one point in time ({@code nvtxMark}). */
    INSTANT
}
