package org.flagos.trace.vendors.cupti.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.model.HostOpMarker;
import org.junit.jupiter.api.Test;

/**
 * The kinds workload runs in steps (its GPU work needs an H200: benchmarks/run-device-record.sh with
 * SCHEDULE set); here, what needs no GPU: it says it has steps, and refuses fewer than one step before
 * touching CUDA.
 */
class KindsWorkloadTest {
    @Test
    void runsInStepsAndRefusesFewerThanOneBeforeAnyCudaCall() {
        KindsWorkload kinds = new KindsWorkload();
        assertTrue(kinds.runsInSteps());
        List<String> ops = new ArrayList<>();
        HostOpMarker marker = name -> {
            ops.add(name);
            return () -> { };
        };
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> kinds.runSteps(marker, () -> { }, 0));
        assertEquals("steps must be at least 1, not 0", e.getMessage());
        assertEquals(List.of(), ops, "no op opened, no CUDA call made");
    }
}
