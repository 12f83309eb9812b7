package org.flagos.trace.stages;

/**
 * One row of the op summary, like a row of torch's {@code key_averages()}: all ops of one name.
 * Self CPU time is the op's duration less the union of its direct children's spans (ops and runtime
 * calls, {@link KeyAveragesRule}), never negative; self device time is the device
 * work whose External id is the op's own; device total adds the ops nested inside it. The first
 * event's start and length place the row among rows that tie ({@link #compareFirstAppearance}).
 */
public record OpSummaryRow(
        String name,
        long count,
        double cpuTimeTotalUs,
        double selfCpuTimeTotalUs,
        double deviceTimeTotalUs,
        double selfDeviceTimeTotalUs,
        long firstStartNs,
        long firstLengthNs) {
    /**
     * Whether this row's first event comes before {@code other}'s: earlier start, then longer. The
     * order torch lists rows that tie on the sort key in (first appearance), as a trace file's rows.
     */
    public int compareFirstAppearance(OpSummaryRow other) {
        int byStart = Long.compare(firstStartNs, other.firstStartNs);
        return byStart != 0 ? byStart : Long.compare(other.firstLengthNs, firstLengthNs);
    }
}
