package org.flagos.trace.session;

/** torch.profiler.schedule's function, built by {@link StepSchedule#builder()}. */
record CyclicSchedule(long skipFirst, long waitSteps, long warmup, long active, long repeat, boolean skipFirstWait)
        implements StepSchedule {
    @Override
    public StepAction action(long step) {
        if (step < 0) {
            throw new IllegalArgumentException("step schedule: steps count from 0, asked for " + step);
        }
        if (step < skipFirst) {
            return StepAction.NONE;
        }
        long s = step - skipFirst;
        if (skipFirstWait) {
            s += waitSteps; // the first cycle enters at its warmup
        }
        long cycle = waitSteps + warmup + active;
        if (repeat > 0 && s / cycle >= repeat) {
            return StepAction.NONE;
        }
        long at = s % cycle;
        if (at < waitSteps) {
            return StepAction.NONE;
        }
        if (at < waitSteps + warmup) {
            return StepAction.WARMUP;
        }
        return at < cycle - 1 ? StepAction.RECORD : StepAction.RECORD_AND_SAVE;
    }

    @Override
    public String toString() {
        return "StepSchedule[skipFirst=" + skipFirst + ", waitSteps=" + waitSteps + ", warmup=" + warmup + ", active=" + active
                + ", repeat=" + repeat + (skipFirstWait ? ", skipFirstWait" : "") + "]";
    }
}
