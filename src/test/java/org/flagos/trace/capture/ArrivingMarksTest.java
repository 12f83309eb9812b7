package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.ingest.HostMark;
import org.flagos.trace.ingest.HostMarkCursor;
import org.junit.jupiter.api.Test;

/**
 * Marks as they arrive, read as a marks file's: in order, "not yet" as far as the tick vouches, none once closed; a mark
 * at or before a time the replay went on from spoils it, in its words, and one after it does not.
 */
class ArrivingMarksTest {
    @Test
    void aMarkByATimeTheReplayWentOnFromSpoilsItAndOneAfterDoesNot() {
        Arrivals arrivals = new Arrivals(1 << 20);
        List<String> spoiled = new ArrayList<>();
        ArrivingMarks marks = new ArrivingMarks(arrivals, spoiled::add);
        HostMark early = new HostMark("step", null, 7, 7, 1_000);
        HostMark later = new HostMark("step", null, 7, 7, 2_001);
        arrivals.tick(2_000);
        assertSame(HostMarkCursor.NOT_YET, marks.next(2_000));
        marks.add(early);
        marks.add(later);
        assertEquals(2, (long) arrivals.locked(marks::notTaken));
        assertSame(early, marks.next(3_000));
        assertSame(later, marks.next());
        arrivals.close(ArrivalsTest.CLOSING);
        assertNull(marks.next());
        assertEquals(0, (long) arrivals.locked(marks::notTaken));
        assertEquals(List.of("a mark at 1000 arrived after records ending at 2000 went on without it"), spoiled);
    }
}
