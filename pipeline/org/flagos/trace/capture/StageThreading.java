package org.flagos.trace.capture;

/**
 * How the stage chain maps to threads. Every stage always sees every slot in chain order; only the
 * number of consumer threads differs. On a 2-core machine, five busy threads (producer and four
 * stages) cost more in hand-offs than the three light stages (names, join, window: about 15% of
 * the work) gain from their own cores, so there they share one thread and the writer has the other
 * core: measured 1.3x the throughput of one thread per stage (docs/benchmarks.md).
 */
public enum StageThreading {
    /** One consumer thread per stage. */
    ONE_PER_STAGE,
    /** Names, join and window share one thread, in that order; the writer has its own. */
    LIGHT_STAGES_SHARED;

    /** {@code -Dflagtrace.threading=one-per-stage|shared}, else chosen by the core count. */
    static StageThreading current() {
        String chosen = System.getProperty("flagtrace.threading", "");
        if (chosen.equals("one-per-stage")) {
            return ONE_PER_STAGE;
        }
        if (chosen.equals("shared")) {
            return LIGHT_STAGES_SHARED;
        }
        return Runtime.getRuntime().availableProcessors() >= 4 ? ONE_PER_STAGE : LIGHT_STAGES_SHARED;
    }
}
