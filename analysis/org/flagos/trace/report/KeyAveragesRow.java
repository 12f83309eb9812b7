package org.flagos.trace.report;

/**
 * One row of {@link KeyAverages}: every event of one name, like a row of torch's
 * {@code prof.key_averages()}. Times in microseconds, computed as torch computes them (doubles).
 *
 * @param device whether the row is device work (a kernel, copy or memset) rather than host events
 */
public record KeyAveragesRow(
        String name,
        boolean device,
        long count,
        double selfCpuUs,
        double cpuTotalUs,
        double selfDeviceUs,
        double deviceTotalUs) {

    /** Mean CPU time a call, microseconds. */
    public double cpuAvgUs() {
        return count == 0 ? 0 : cpuTotalUs / count;
    }

    /** Mean device time a call, microseconds. */
    public double deviceAvgUs() {
        return count == 0 ? 0 : deviceTotalUs / count;
    }
}
