package org.flagos.trace.stages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FlowIndexTest {
    private final List<long[]> arrows = new ArrayList<>();

    /** Keeps what a completed arrow says (the index refills one object). */
    private void keep(FlowArrow a) {
        if (a != null) {
            arrows.add(new long[] {a.correlation(), a.hostTs(), a.deviceTs(), a.id()});
        }
    }

    @Test
    void callsThatLaunchedNothingAreGivenUpAtTheHorizonAndNothingElseIs() throws Exception {
        int horizon = 64;
        FlowIndex flows = new FlowIndex(horizon);
        int maxWaiting = 0;
        for (long c = 0; c < 100_000; c++) {
            keep(flows.host(c, 1000 + c, 1, 2));
            if (c >= 5 && (c - 5) % 2 == 0) {
                keep(flows.device(c - 5, 5000 + c, 0, 7)); // launches complete five calls later
            }
            maxWaiting = Math.max(maxWaiting, flows.waiting());
        }
        assertTrue(maxWaiting <= horizon, "waiting " + maxWaiting);
        assertEquals(49_998, arrows.size(), "every launch that ran got its arrow");
        for (long[] a : arrows) {
            assertEquals(0, a[0] % 2, "only even calls launched: " + a[0]);
            assertEquals(1000 + a[0], a[1]);
        }
        assertTrue(flows.givenUp() >= 49_000, "odd calls given up: " + flows.givenUp());
    }

    @Test
    void aDeviceEndBeforeItsCallStillPairs() throws Exception {
        FlowIndex flows = new FlowIndex(4);
        keep(flows.device(9, 50, 0, 7));
        keep(flows.device(9, 40, 0, 7));
        keep(flows.host(9, 10, 1, 2));
        assertEquals(1, arrows.size());
        assertEquals(40, arrows.get(0)[2], "the arrow ends at the first device record");
        assertEquals(0, flows.waiting());
    }

    @Test
    void everyRecordOfAGraphLaunchGetsAnArrowFromTheLaunchWhateverComesFirst() {
        FlowIndex flows = new FlowIndex(64);
        keep(flows.device(9, 40, 0, 7, 11)); // two graph records before their launch
        keep(flows.device(9, 50, 0, 7, 12));
        keep(flows.host(9, 10, 1, 2));
        for (FlowArrow more; (more = flows.nextArrow()) != null; ) {
            keep(more);
        }
        keep(flows.device(9, 60, 0, 7, 13)); // and one after it
        assertEquals(3, arrows.size());
        List<Long> ids = new ArrayList<>();
        for (long[] a : arrows) {
            assertEquals(9, a[0]);
            assertEquals(10, a[1], "every arrow starts at the launch");
            ids.add(a[3]);
        }
        assertEquals(List.of(FlowIndex.graphArrowId(9, 12), FlowIndex.graphArrowId(9, 11), FlowIndex.graphArrowId(9, 13)), ids);
        assertEquals(9 + (12L << 32), FlowIndex.graphArrowId(9, 11), "correlation + (node + 1) * 2^32");
        for (long c = 100; c < 200; c++) { // the kept launch leaves at the horizon, paired already
            keep(flows.host(c, c, 1, 2));
            keep(flows.device(c, c + 1, 0, 7));
        }
        assertEquals(0, flows.givenUp(), "a graph launch that paired is not given up");
    }

    @Test
    void aGraphRecordWhoseLaunchIsMissingIsGivenUpOnce() {
        FlowIndex flows = new FlowIndex(4);
        keep(flows.device(9, 40, 0, 7, 11));
        keep(flows.device(9, 50, 0, 7, 12));
        for (long c = 100; c < 110; c++) {
            keep(flows.host(c, c, 1, 2));
        }
        keep(flows.host(9, 10, 1, 2));
        assertEquals(0, arrows.stream().filter(a -> a[0] == 9 && a[3] != 9).count(), "no arrow to a record given up");
        assertTrue(flows.givenUp() >= 2, "both graph records counted: " + flows.givenUp());
    }
}
