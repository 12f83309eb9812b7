package org.flagos.trace.stages;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The queue hands events back exactly as a stable sort by post-order would: the order the
 * summary's fold relied on when it kept them in an insertion-sorted array.
 */
class PostOrderQueueTest {
    private record Event(int name, long start, long end, long device) { }

    private static final Comparator<Event> POST_ORDER = (a, b) -> KeyAveragesRule.postOrder(a.start, a.end, b.start, b.end);

    @Test
    void leavesInStablePostOrderWhateverOrderEventsCameIn() {
        Random random = new Random(30);
        for (int round = 0; round < 200; round++) {
            PostOrderQueue queue = new PostOrderQueue();
            List<Event> events = new ArrayList<>();
            int n = 1 + random.nextInt(300);
            for (int i = 0; i < n; i++) {
                long s = random.nextInt(50); // few distinct values: many ties, zero-length events too
                Event e = new Event(i, s, s + random.nextInt(4), random.nextInt(10));
                events.add(e);
                queue.add(e.name, e.start, e.end, e.device);
            }
            List<Event> expected = new ArrayList<>(events);
            expected.sort(POST_ORDER); // List.sort is stable
            for (Event e : expected) {
                assertEquals(e, new Event(queue.firstName(), queue.firstStart(), queue.firstEnd(), queue.firstDevice()), "round " + round);
                queue.removeFirst();
            }
            assertEquals(0, queue.size());
        }
    }

    @Test
    void movesTheEventsInsideASpanInPostOrderAndKeepsTheRest() {
        Random random = new Random(31);
        for (int round = 0; round < 200; round++) {
            PostOrderQueue queue = new PostOrderQueue();
            PostOrderQueue out = new PostOrderQueue();
            List<Event> events = new ArrayList<>();
            List<Event> already = new ArrayList<>();
            for (int i = 0; i < 1 + random.nextInt(100); i++) {
                long s = random.nextInt(40);
                Event e = new Event(i, s, s + random.nextInt(5), 0);
                events.add(e);
                queue.add(e.name, e.start, e.end, 0);
            }
            for (int i = 0; i < random.nextInt(5); i++) { // out holds some already: moved ones go after their equals
                long s = random.nextInt(40);
                Event e = new Event(1000 + i, s, s + random.nextInt(5), 0);
                already.add(e);
                out.add(e.name, e.start, e.end, e.device);
            }
            long lo = random.nextInt(20);
            long hi = lo + random.nextInt(25);
            queue.moveInside(lo, hi, out, 7);

            List<Event> inside = new ArrayList<>();
            List<Event> kept = new ArrayList<>();
            for (Event e : events) {
                (e.start >= lo && e.end <= hi ? inside : kept).add(e);
            }
            inside.sort(POST_ORDER);
            List<Event> expectedOut = new ArrayList<>(already);
            for (Event e : inside) {
                expectedOut.add(new Event(e.name, e.start, e.end, 7));
            }
            expectedOut.sort(POST_ORDER);
            kept.sort(POST_ORDER);
            assertEquals(kept, drain(queue), "round " + round);
            assertEquals(expectedOut, drain(out), "round " + round);
        }
    }

    private static List<Event> drain(PostOrderQueue queue) {
        List<Event> events = new ArrayList<>();
        while (queue.size() > 0) {
            events.add(new Event(queue.firstName(), queue.firstStart(), queue.firstEnd(), queue.firstDevice()));
            queue.removeFirst();
        }
        return events;
    }
}
