package org.flagos.trace.session;

/**
 * What a {@link StepSchedule} asks of one step: torch.profiler's {@code ProfilerAction}, with the
 * same four values and the same meaning.
 */
public enum StepAction {
    /** Nothing: no activity kind is armed and ops record nothing. */
    NONE,
    /** The tracer is armed (its start-up cost is paid here), what it delivers is dropped; ops record nothing. */
    WARMUP,
    /** Recorded into the cycle's trace. */
    RECORD,
    /** Recorded, and the last step of its cycle: at the next step the trace is completed and handed over. */
    RECORD_AND_SAVE
}
