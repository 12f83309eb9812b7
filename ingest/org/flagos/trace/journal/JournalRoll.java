package org.flagos.trace.journal;

import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.RollCycles;
import net.openhft.chronicle.queue.rollcycles.TestRollCycles;

/**
 * How long one cycle (one file) of a journal spans. Retention deletes whole cycles, so the cycle
 * is the granularity of a flight recorder's window. {@code 1s} is Chronicle's test cycle: for short
 * runs and tests (one file per second).
 */
public enum JournalRoll {
    SECOND("1s", TestRollCycles.TEST_SECONDLY),
    FIVE_MINUTES("5m", RollCycles.FIVE_MINUTELY),
    TEN_MINUTES("10m", RollCycles.TEN_MINUTELY),
    HOUR("1h", RollCycles.FAST_HOURLY),
    DAY("1d", RollCycles.FAST_DAILY);

    private final String spec;
    private final RollCycle cycle;

    JournalRoll(String spec, RollCycle cycle) {
        this.spec = spec;
        this.cycle = cycle;
    }

    /** The roll for {@code 1s}, {@code 5m}, {@code 10m}, {@code 1h} or {@code 1d}; IllegalArgumentException otherwise. */
    public static JournalRoll parse(String spec) {
        for (JournalRoll roll : values()) {
            if (roll.spec.equals(spec)) {
                return roll;
            }
        }
        throw new IllegalArgumentException("roll '" + spec + "' is not one of 1s, 5m, 10m, 1h, 1d");
    }

    public String spec() {
        return spec;
    }

    /** Length of one cycle in ms. */
    public long millis() {
        return cycle.lengthInMillis();
    }

    RollCycle cycle() {
        return cycle;
    }
}
