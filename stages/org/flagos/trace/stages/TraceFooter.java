package org.flagos.trace.stages;

/**
 * What {@link TraceSink#footer} needs at the end of a capture.
 *
 * @param hostPid       the pid of the host rows
 * @param windowBounded true when the capture has a window, so torch's capture span is drawn
 * @param windowStartNs the window's start (epoch ns), when bounded
 * @param windowEndNs   the window's end (epoch ns), when bounded
 * @param spanNameId    the capture span's name ({@code PyTorch Profiler (0)}) in the name table
 * @param events        records, op rows and flow events written
 * @param accounting    the capture's counts, final
 */
public record TraceFooter(long hostPid, boolean windowBounded, long windowStartNs, long windowEndNs, int spanNameId,
                          long events, CaptureAccounting accounting) {
}
