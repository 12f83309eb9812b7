package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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

    /**
     * Every buffer goes to CUPTI all zeros, so a record it reserved but had not written when it handed
     * the buffer over reads as kind 0, never as a record an earlier use of the buffer left there.
     */
    @Test
    void aBufferIsLentZeroedAgainAfterCuptiWroteIntoIt() {
        CuptiBufferPool pool = new CuptiBufferPool(BYTES, 1);
        BytePointer b = pool.take();
        assertEquals(-1, firstNonZero(b, BYTES), "a new buffer is zeros");
        for (int i = 0; i < 4096; i++) {
            b.put(i, (byte) 0x5a); // CUPTI's records, 4 KiB of them
        }
        assertTrue(pool.give(b.address(), 4096));
        BytePointer again = pool.take();
        assertEquals(b.address(), again.address());
        assertEquals(-1, firstNonZero(again, BYTES), "what CUPTI wrote is gone before it is lent again");
    }

    /**
     * A buffer the stop's forced flush handed back may still be written by a launch that reserved a
     * record in it: it is neither zeroed nor lent until the next stop releases it, zeroed.
     */
    @Test
    void aBufferFromAStopsFlushIsSetAsideUntilTheNextStop() {
        CuptiBufferPool pool = new CuptiBufferPool(BYTES, 1);
        BytePointer b = pool.take();
        b.put(100, (byte) 7);
        assertTrue(pool.give(b.address(), 4096, true));
        assertEquals(0, pool.free());
        BytePointer other = pool.take();
        assertNotEquals(b.address(), other.address());
        b.put(200, (byte) 9); // a late write after the hand-over lands in a buffer no one else has
        assertEquals(7, b.get(100), "set aside untouched");
        assertEquals(1, pool.releaseSetAside());
        assertEquals(1, pool.free());
        assertEquals(-1, firstNonZero(b, BYTES), "released zeroed, the late write included");
        assertEquals(1, pool.setAsideTotal());
        assertTrue(pool.give(b.address(), 1, true) && pool.returnedTwice() == 1, "a free buffer handed back is counted");
    }

    private static int firstNonZero(BytePointer b, int bytes) {
        for (int i = 0; i < bytes; i++) {
            if (b.get(i) != 0) {
                return i;
            }
        }
        return -1;
    }
}
