package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/**
 * Ops or marks as they arrive, taken in arrival order: an item when one is there, "not yet" when the tick vouches for
 * the time asked (remembered, so an item by then is known to be late), none once closed; the first awaited only as far
 * as the frames waiting allow; what arrived and was not taken counted.
 */
class ArrivingQueueTest {
    private static final String NOT_YET = "(not yet)";

    @Test
    void itemsInArrivalOrderThenNotYetAsFarAsTheTickVouchesThenNoneOnceClosed() {
        Arrivals arrivals = new Arrivals(1 << 20);
        ArrivingQueue<String> queue = new ArrivingQueue<>(arrivals);
        queue.add("a");
        queue.add("b");
        arrivals.tick(100);
        assertEquals("a", queue.next(500, NOT_YET), "an item is taken whatever the tick");
        assertEquals("b", queue.next(500, NOT_YET));
        assertSame(NOT_YET, queue.next(100, NOT_YET));
        assertSame(NOT_YET, queue.next(40, NOT_YET));
        assertEquals(100, queue.notYetNs(), "the latest time vouched for");
        assertEquals(0, (long) arrivals.locked(queue::notTaken));
        queue.add("c");
        arrivals.close(ArrivalsTest.CLOSING);
        queue.add("after the close");
        assertEquals(1, (long) arrivals.locked(queue::notTaken));
        assertEquals("c", queue.next(Long.MAX_VALUE, NOT_YET));
        assertNull(queue.next(Long.MAX_VALUE, NOT_YET));
        assertNull(queue.first(0));
        assertEquals(0, (long) arrivals.locked(arrivals::queuedBytes), "every item taken is no longer counted");
    }

    @Test
    void theFirstIsNotAwaitedPastTheFramesItMayWaitFor() {
        Arrivals arrivals = new Arrivals(1 << 20);
        ArrivingQueue<String> queue = new ArrivingQueue<>(arrivals);
        arrivals.add(ArrivingQueue.ITEM_BYTES + 1, () -> { }); // frames waiting, past what the first item may wait for
        assertNull(queue.first(ArrivingQueue.ITEM_BYTES));
        queue.add("first");
        assertEquals("first", queue.first(0));
        assertEquals(ArrivingQueue.ITEM_BYTES + 1, (long) arrivals.locked(arrivals::queuedBytes));
    }
}
