package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The driver calls a session records: every launch call of CUPTI 13.0's driver table and nothing else, the same
 * list as the injected library's, and the property that picks launches, all or none.
 */
class CuptiDriverLaunchesTest {
    @Test
    void theIdsAreEveryLaunchOfTheDriverTableAndOnlyThose() {
        List<String> launches = Arrays.stream(CuptiDriverLaunches.LAUNCH_CBIDS).mapToObj(c -> CuptiDriverCbidNames.NAMES[c]).toList();
        assertEquals(List.of("cuLaunch", "cuLaunchGrid", "cuLaunchGridAsync", "cuLaunchKernel", "cuLaunchKernel_ptsz",
                "cuLaunchCooperativeKernel", "cuLaunchCooperativeKernel_ptsz", "cuGraphLaunch", "cuGraphLaunch_ptsz",
                "cuLaunchKernelEx", "cuLaunchKernelEx_ptsz"), launches);
        for (int cbid = 1; cbid < CuptiDriverCbidNames.NAMES.length; cbid++) {
            String name = CuptiDriverCbidNames.NAMES[cbid];
            boolean launchLike = name != null && name.matches("cu(Graph)?Launch(Kernel|Grid|Cooperative)?.*")
                    && !name.startsWith("cuLaunchHostFunc") && !name.contains("Multi") && !name.contains("Device");
            assertEquals(launchLike, CuptiDriverLaunches.isLaunch(cbid), cbid + " " + name);
        }
        assertTrue(CuptiDriverCbidNames.NAMES.length <= CuptiDriverLaunches.CBID_LIMIT, "every id of the table is switched");
    }

    @Test
    void theInjectedLibraryArmsTheSameLaunches() throws IOException {
        int[] inC = InjectedLibrarySource.intArray("DRIVER_LAUNCHES");
        assertEquals(Arrays.toString(CuptiDriverLaunches.LAUNCH_CBIDS), Arrays.toString(inC));
        assertEquals(CuptiDriverLaunches.CBID_LIMIT, InjectedLibrarySource.constant("DRIVER_CBID_LIMIT"));
    }

    @Test
    void thePropertyPicksLaunchesAllOrNone() {
        assertEquals("launches", CuptiTracer.driverCalls("launches"));
        assertEquals("all", CuptiTracer.driverCalls("true"));
        assertEquals("all", CuptiTracer.driverCalls(" ALL "));
        assertEquals("none", CuptiTracer.driverCalls("false"));
        assertEquals("none", CuptiTracer.driverCalls("none"));
        assertEquals("launches", CuptiTracer.driverCalls("sometimes"), "another value: said, and launches");
        assertFalse(CuptiDriverLaunches.isLaunch(1), "cuInit is no launch");
    }
}
