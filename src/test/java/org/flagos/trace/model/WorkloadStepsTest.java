package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** A workload that has no steps says so, and refuses to run in steps with its name in the message. */
class WorkloadStepsTest {
    @Test
    void aWorkloadWithoutStepsRefusesToRunInSteps() {
        Workload oneShot = new Workload() {
            @Override
            public String name() {
                return "once";
            }

            @Override
            public String description() {
                return "runs once";
            }

            @Override
            public void run(HostOpMarker ops) {
            }
        };
        assertFalse(oneShot.runsInSteps());
        HostOpMarker none = name -> () -> { };
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                () -> oneShot.runSteps(none, () -> { }, 3));
        assertEquals("workload once runs in one piece and has no steps", e.getMessage());
    }
}
