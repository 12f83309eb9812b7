package org.flagos.trace.stages;

/**
 * One paired flow arrow, launch to device work, as {@link FlowIndex} completes it and a
 * {@link TraceSink} encodes it. Refilled for every arrow: a sink reads it during the call only.
 */
public final class FlowArrow {
    private long id;
    private long correlation;
    private long hostTs;
    private long hostPid;
    private long hostTid;
    private long deviceTs;
    private int devicePid;
    private int deviceTid;

    FlowArrow set(long id, long correlation, long hostTs, long hostPid, long hostTid, long deviceTs, int devicePid, int deviceTid) {
        this.id = id;
        this.correlation = correlation;
        this.hostTs = hostTs;
        this.hostPid = hostPid;
        this.hostTid = hostTid;
        this.deviceTs = deviceTs;
        this.devicePid = devicePid;
        this.deviceTid = deviceTid;
        return this;
    }

    /**
     * The arrow's id, unique in the trace: the correlation, except for a graph launch's second and
     * later arrows ({@link FlowIndex}).
     */
    public long id() {
        return id;
    }

    /** The vendor correlation id both ends carry (64 bits, unsigned). */
    public long correlation() {
        return correlation;
    }

    /** Start of the API call, epoch ns. */
    public long hostTs() {
        return hostTs;
    }

    public long hostPid() {
        return hostPid;
    }

    public long hostTid() {
        return hostTid;
    }

    /** Start of the first device record the call launched, epoch ns. */
    public long deviceTs() {
        return deviceTs;
    }

    /** The device's row: its ordinal. */
    public int devicePid() {
        return devicePid;
    }

    /** The stream's row. */
    public int deviceTid() {
        return deviceTid;
    }
}
