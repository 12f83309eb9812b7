package org.flagos.trace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;

/**
 * {@link IdRuns}: the External ids of every bundled capture's ops file are each new once and seen again after; random ids
 * against a set; neighbours join into one run from either side (so ids in order never give the check up, however
 * many), the ends of a long included; past {@link IdRuns#MAX_RUNS} disjoint runs the check is given up, saying after
 * how many ids.
 */
class IdRunsTest {
    @Test
    void theBundledOpsFilesIdsAreEachNewOnce() {
        for (String capture : List.of("h200-app", "h200-app-tiny2k", "h200-mt4", "h200-java-parity")) {
            List<HostOp> ops = OpsJsonlReader.read(Captures.ops(capture)).ops();
            IdRuns ids = new IdRuns();
            for (HostOp op : ops) {
                assertTrue(ids.add(op.externalId().value()), capture + " " + op);
            }
            for (HostOp op : ops) {
                assertFalse(ids.add(op.externalId().value()), capture + ": seen again " + op);
            }
            assertEquals(0, ids.givenUp());
            assertTrue(ops.size() > 10, capture);
        }
    }

    @Test
    void randomIdsAgainstASet() {
        Random r = new Random(30);
        IdRuns ids = new IdRuns();
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < 200_000; i++) {
            long id = r.nextInt(20_000) - 10_000;
            assertEquals(seen.add(id), ids.add(id), "id " + id);
        }
        assertEquals(0, ids.givenUp());
    }

    @Test
    void neighboursJoinSoIdsInAnyOrderOfRunsNeverGiveUp() {
        IdRuns ids = new IdRuns();
        int n = IdRuns.MAX_RUNS;
        for (long i = 0; i < n; i++) {
            assertTrue(ids.add(2 * i)); // MAX_RUNS runs of one id each: at the limit, not past it
        }
        assertEquals(0, ids.givenUp());
        for (long i = 0; i < n; i++) {
            assertTrue(ids.add(2 * i + 1)); // each fills a gap: below and above join into one run
        }
        for (long i = 0; i < 3L * n; i++) {
            ids.add(10L * n + 2 * i); // as many new single runs again as were joined away, and more
            if (ids.givenUp() > 0) {
                assertEquals(2L * n + i + 1, ids.givenUp(), "given up at the run past the limit, counting every id added");
                assertTrue(i >= n - 1, "the joined runs took no room: " + i);
                break;
            }
        }
        assertTrue(ids.givenUp() > 0);
        assertTrue(ids.add(0), "given up: every id is taken as new");

        IdRuns ends = new IdRuns();
        assertTrue(ends.add(Long.MAX_VALUE));
        assertTrue(ends.add(Long.MIN_VALUE));
        assertTrue(ends.add(Long.MAX_VALUE - 1));
        assertFalse(ends.add(Long.MAX_VALUE));
        assertFalse(ends.add(Long.MIN_VALUE));
        assertTrue(ends.add(Long.MIN_VALUE + 1));
        assertFalse(ends.add(Long.MIN_VALUE + 1));
    }

    @Test
    void pastTheLimitTheCheckIsGivenUp() {
        IdRuns ids = new IdRuns();
        for (long i = 0; i <= IdRuns.MAX_RUNS; i++) {
            ids.add(3 * i);
        }
        assertEquals(IdRuns.MAX_RUNS + 1L, ids.givenUp());
        assertTrue(ids.add(0), "no longer checked");
        assertEquals(IdRuns.MAX_RUNS + 1L, ids.givenUp());
    }
}
