package org.flagos.trace.model;

import java.util.List;

/**
 * The contract every vendor tracer satisfies, and the only vendor surface the rest of flagtrace
 * sees. A tracer decodes its vendor's activity buffers into vendor-neutral records published into
 * the ring it is started with.
 */
public interface DeviceTracer {
    /** Short vendor name, e.g. {@code cupti}. */
    String name();

    /** True when the vendor library loaded and a device is present. */
    boolean available();

    /** One line saying why the tracer is unavailable; empty when available. */
    String unavailableReason();

    /** The vendor's callback-id namespace for the API records it publishes. */
    ApiNames apiNames();

    /**
     * Arms the session's activity kinds; records flow into {@code sink} until {@link #stop()}.
     * Records carry name handles; the pipeline's name stage resolves them and interns into {@code
     * names} (a tracer may read it, as MSPTI's correlation remap does); every record is counted in {@code stats};
     * raw buffers also go to {@code tap} (for {@code --dump-buffers}).
     */
    void start(RecordSink sink, NameTable names, DecodeStats stats, BufferTap tap);

    /** Disarms the session's kinds and flushes every pending buffer into the sink. */
    void stop();

    /**
     * Pushes the calling thread's innermost host op id as the vendor's external correlation id;
     * true when pushed (false without a session or while one stops), and only then is
     * {@link #popCorrelation()} to follow. Never blocks.
     */
    boolean pushCorrelation(ExternalId id);

    /** Pops what the calling thread pushed last; does nothing once the session that pushed it stopped. */
    void popCorrelation();

    /** Number of devices the vendor sees. */
    int deviceCount();

    /** Properties of each device, for {@code deviceProperties} and occupancy. */
    List<DeviceProperties> deviceProperties();

    /** Records the vendor reported as dropped (buffer overflow etc.) since the last start. */
    long droppedByVendor();

    /** The vendor's clock now, as UNIX-epoch nanoseconds (the clock of its records). */
    long timestampNs();

    /**
     * How many records (activity records and bindings, counted where the trace walk receives them)
     * may still arrive after a host op and name it, in a live session of this tracer: the walk settles
     * the op after that many (folds it into the summary and writes its row), while the session runs.
     * It is what the tracer can deliver late: the records of a launch reach the walk in the vendor
     * buffer that holds them, after the op that launched them, which is published when it closes.
     * Records that arrive later still are drawn and counted, never attributed elsewhere
     * ({@code reorder_horizon.records_after_op_settled}). 0 (the default): not known, and the op waits
     * the join's reorder horizon, as in a replay.
     */
    default int opSettleRecords() {
        return 0;
    }

    /**
     * Hands every record the vendor holds of calls that have returned to the sink now, without
     * disarming: when it returns true, each binding and API record of a call that returned before the
     * flush began has been published. The session calls it from its own thread while ops run and
     * nothing arrives, so ops that launched nothing can settle ({@link RecordType#FLUSH_BARRIER}).
     * False (the default): the vendor cannot promise that, and ops wait for records as before.
     */
    default boolean flush() {
        return false;
    }

    /**
     * Buffers the vendor has handed over so far (every session's), or -1 when the tracer does not
     * count them: how the session tells that records are arriving on their own, with no
     * {@link #flush()} needed.
     */
    default long buffersDelivered() {
        return -1;
    }

    /**
     * Stages this vendor's records need between API naming and the external-correlation join (MSPTI
     * remaps its correlation ids there), in order; the pipeline wires them in for every capture of
     * the vendor, live or replayed. None by default.
     */
    default java.util.List<com.lmax.disruptor.EventHandler<TraceRecord>> stages() {
        return java.util.List.of();
    }
}
