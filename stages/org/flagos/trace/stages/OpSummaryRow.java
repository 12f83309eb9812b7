package org.flagos.trace.stages;

/**
 * One row of the op summary, like a row of torch's {@code key_averages()}: all ops of one name.
 * Self CPU time is the op's duration less the union of its direct children's spans (ops and runtime
 * calls, {@link KeyAveragesRule}), never negative; self device time is the device
 * work whose External id is the op's own; device total adds the ops nested inside it.
 */
public record OpSummaryRow(
        String name,
        long count,
        double cpuTimeTotalUs,
        double selfCpuTimeTotalUs,
        double deviceTimeTotalUs,
        double selfDeviceTimeTotalUs) {
}
