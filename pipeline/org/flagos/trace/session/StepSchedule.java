package org.flagos.trace.session;

/**
 * Which {@link StepAction} each step of a {@link ScheduledSession} takes; steps count from 0.
 * {@link #builder()} makes torch.profiler's {@code schedule(skip_first, wait, warmup, active,
 * repeat, skip_first_wait)}, action for action; any other function of the step number can serve
 * (a lambda), as any callable can in torch.
 *
 * <p>Implementations must be pure functions of the step, callable from any thread.
 */
@FunctionalInterface
public interface StepSchedule {
    /** The action of step {@code step} (0 or more). */
    StepAction action(long step);

    /** A builder of torch's cyclic schedule: {@code active} must be set, the rest defaults to 0. */
    static Builder builder() {
        return new Builder();
    }

    /**
     * torch.profiler.schedule's parameters. After {@code skipFirst} steps that do nothing, cycles
     * of {@code waitSteps} steps doing nothing, {@code warmup} steps with the tracer armed and its
     * records dropped, and {@code active} recorded steps follow each other; the last active step of
     * a cycle is {@link StepAction#RECORD_AND_SAVE}. {@code repeat} cycles run, then nothing;
     * {@code repeat} 0 runs cycles until the session closes. With {@code skipFirstWait}, the first
     * cycle starts without its wait steps (later ones wait as usual). Not thread-safe; the schedule it
     * builds is immutable.
     */
    final class Builder {
        private long skipFirst;
        private long wait;
        private long warmup;
        private long active;
        private long repeat;
        private boolean skipFirstWait;

        private Builder() {
        }

        /** Steps that do nothing before the first cycle (torch's {@code skip_first}). */
        public Builder skipFirst(long steps) {
            this.skipFirst = steps;
            return this;
        }

        /**
         * Steps that do nothing at the start of each cycle (torch's {@code wait}; Java's
         * {@code Object.wait} takes the plain name).
         */
        public Builder waitSteps(long steps) {
            this.wait = steps;
            return this;
        }

        /** Steps of each cycle with the tracer armed and its records dropped. */
        public Builder warmup(long steps) {
            this.warmup = steps;
            return this;
        }

        /** Recorded steps of each cycle: at least 1. */
        public Builder active(long steps) {
            this.active = steps;
            return this;
        }

        /** Cycles to run; 0 (the default) runs them until the session closes. */
        public Builder repeat(long cycles) {
            this.repeat = cycles;
            return this;
        }

        /** Whether the first cycle starts without its wait (torch's {@code skip_first_wait}). */
        public Builder skipFirstWait(boolean skip) {
            this.skipFirstWait = skip;
            return this;
        }

        /**
         * The schedule.
         *
         * @throws IllegalArgumentException naming the parameter, when one is negative, {@code active}
         *                                  is 0, or a cycle is longer than a {@code long} counts
         */
        public StepSchedule build() {
            nonNegative("skipFirst", skipFirst);
            nonNegative("waitSteps", wait);
            nonNegative("warmup", warmup);
            nonNegative("repeat", repeat);
            if (active < 1) {
                throw new IllegalArgumentException("step schedule: active must be at least 1 (the recorded steps of a cycle), was "
                        + active);
            }
            if (wait > Long.MAX_VALUE - warmup || wait + warmup > Long.MAX_VALUE - active) {
                throw new IllegalArgumentException("step schedule: waitSteps + warmup + active overflows a long (" + wait + " + "
                        + warmup + " + " + active + ")");
            }
            return new CyclicSchedule(skipFirst, wait, warmup, active, repeat, skipFirstWait);
        }

        private static void nonNegative(String name, long value) {
            if (value < 0) {
                throw new IllegalArgumentException("step schedule: " + name + " must be 0 or more, was " + value);
            }
        }
    }
}
