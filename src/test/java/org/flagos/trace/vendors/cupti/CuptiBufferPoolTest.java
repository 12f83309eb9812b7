package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.bytedeco.javacpp.BytePointer;
import org.junit.jupiter.api.Test;

/**
 * The pool's lending rules: a buffer is lent to one request at a time, whatever order CUPTI hands
 * buffers back in and however a detach interleaves with a completion still on its way back.
 */
class CuptiBufferPoolTest {
    private static final int BYTES = 64 << 10;

    @Test
    void aBufferHandedBackTwiceIsLentOnce() {
        CuptiBufferPool pool = new CuptiBufferPool(BYTES, 2);
        BytePointer a = pool.take();
        assertTrue(pool.give(a.address()));
        assertTrue(pool.give(a.address()), "owned, so true, but counted");
        assertEquals(1, pool.returnedTwice());
        BytePointer first = pool.take();
        BytePointer second = pool.take();
        assertNotSame(first, second, "one buffer handed back twice must not go out to two requests");
    }

    @Test
    void aLateCompletionAfterADetachDoesNotFreeABufferLentAgain() {
        CuptiBufferPool pool = new CuptiBufferPool(BYTES, 4);
        BytePointer held = pool.take(); // CUPTI holds it when detached
        assertEquals(1, pool.orphanAtDetach());
        Set<Long> lentAfter = new HashSet<>();
        for (int i = 0; i < 3; i++) {
            lentAfter.add(pool.take().address()); // the next session's requests: the three free ones
        }
        assertFalse(lentAfter.contains(held.address()), "an orphaned buffer is not lent while its completion may still come");
        assertTrue(pool.give(held.address())); // the completion that was on its way back
        assertEquals(0, pool.returnedTwice());
        assertEquals(held.address(), pool.take().address(), "handed back, it is free again");
    }

    @Test
    void anOrphanNeverHandedBackIsTakenBackAtTheNextDetach() {
        CuptiBufferPool pool = new CuptiBufferPool(BYTES, 2);
        pool.take();
        pool.take();
        assertEquals(2, pool.orphanAtDetach());
        assertEquals(0, pool.free());
        assertEquals(0, pool.orphanAtDetach(), "nothing lent in between");
        assertEquals(2, pool.free(), "a whole session later, CUPTI's forgotten buffers are free again");
    }

    @Test
    void theLastDetachesOrphansWaitOneMoreDetach() {
        CuptiBufferPool pool = new CuptiBufferPool(BYTES, 3);
        BytePointer old = pool.take();
        pool.orphanAtDetach();
        BytePointer fresh = pool.take(); // lent by the next session, held at its detach
        assertEquals(1, pool.orphanAtDetach());
        assertEquals(2, pool.free(), "the old orphan and the never-lent one");
        assertTrue(pool.give(fresh.address()));
        assertEquals(3, pool.free());
        assertNotNull(old);
    }

    @Test
    void growsWhenEverythingIsOutAndStopsAtItsCapacity() {
        CuptiBufferPool pool = new CuptiBufferPool(BYTES, 1);
        for (int i = 0; i < CuptiBufferPool.CAPACITY; i++) {
            assertNotNull(pool.take(), "buffer " + i);
        }
        assertEquals(CuptiBufferPool.CAPACITY - 1, pool.grown());
        assertNull(pool.take(), "past the cap CUPTI is given none and counts what it drops");
    }

    @Test
    void aBufferItDoesNotOwnIsRefused() {
        CuptiBufferPool pool = new CuptiBufferPool(BYTES, 1);
        try (BytePointer stranger = new BytePointer(16)) {
            assertFalse(pool.give(stranger.address()));
        }
        assertEquals(0, pool.returnedTwice());
    }
}
