package org.flagos.trace.vendors.activity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bytedeco.javacpp.BytePointer;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.FltrbufFrames;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.vendors.cupti.CuptiRecordLayout;
import org.junit.jupiter.api.Test;

/**
 * The buffer-completion gate every tracer shares: buffers completed with no session are counted (when
 * they hold records) and left alone; during a session each goes to the session under its lock, with
 * its bytes read in place, little-endian; a receiver's failure is counted as an invalid buffer and
 * never thrown back; and closing waits for the completions inside. The bytes are the bundled H200
 * kinds capture's CUPTI buffers.
 */
class CompletedBuffersTest {
    /** A receiver that keeps what it was handed and can be made to fail or wait. */
    private static class Session implements CompletedBuffers.Receiver {
        final DecodeStats stats = new DecodeStats();
        final List<Long> sizes = new ArrayList<>();
        final AtomicInteger inside = new AtomicInteger();
        int overlaps;
        RuntimeException fail;
        CountDownLatch entered;
        CountDownLatch release;

        @Override
        public void completed(BytePointer buffer, long validSize) {
            if (inside.incrementAndGet() > 1) {
                overlaps++;
            }
            try {
                if (entered != null) {
                    entered.countDown();
                    release.await();
                }
                if (fail != null) {
                    throw fail;
                }
                sizes.add(validSize);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            } finally {
                inside.decrementAndGet();
            }
        }

        @Override
        public DecodeStats stats() {
            return stats;
        }
    }

    @Test
    void theCapturesBuffersReachTheSessionWholeAndInPlace() {
        CompletedBuffers buffers = new CompletedBuffers("a CUPTI buffer");
        DecodeStats walked = new DecodeStats();
        RecordWalk walk = new RecordWalk("CUPTI", CuptiRecordLayout.CUPTI_13_0::recordSize, "");
        long[] records = {0, 0};
        long bytes = 0;
        int frames = 0;
        buffers.open();
        CompletedBuffers.Receiver session = new CompletedBuffers.Receiver() {
            @Override
            public void completed(BytePointer buffer, long validSize) {
                ByteBuffer b = CompletedBuffers.bytes(buffer, validSize);
                assertEquals(ByteOrder.LITTLE_ENDIAN, b.order());
                assertEquals(validSize, b.remaining());
                walk.start(b, walked);
                while (walk.next() >= 0) {
                    records[1]++;
                }
            }

            @Override
            public DecodeStats stats() {
                return walked;
            }
        };
        FltrbufFrames file = new FltrbufFrames(CaptureBytes.load(Captures.capture("h200-kinds/h200-kinds")), "h200-kinds");
        while (file.next()) {
            ByteBuffer payload = file.payload();
            // the same frame walked from the file's own bytes
            walk.start(payload.duplicate(), walked);
            while (walk.next() >= 0) {
                records[0]++;
            }
            // ... and handed over as the vendor hands a buffer: native memory, larger than its valid bytes
            int valid = payload.remaining();
            try (BytePointer native_ = new BytePointer(valid + 4096L)) {
                byte[] copy = new byte[valid];
                payload.duplicate().get(copy);
                native_.position(0).put(copy, 0, valid);
                assertTrue(buffers.deliver(session, native_, valid));
            }
            bytes += valid;
            frames++;
        }
        assertTrue(frames > 0 && records[0] > 1000, frames + " frames, " + records[0] + " records");
        assertEquals(records[0], records[1], "every record read in place, as from the file");
        assertEquals(0, walked.undecodableBytes());
        assertEquals(frames, buffers.delivered());
        assertEquals(bytes, buffers.deliveredBytes());
        assertEquals(0, buffers.outsideSession());
        assertTrue(buffers.receivingNs() >= 0);
    }

    @Test
    void withNoSessionABufferIsCountedOnlyWhenItHoldsRecords() {
        CompletedBuffers buffers = new CompletedBuffers("a CUPTI buffer");
        Session s = new Session();
        try (BytePointer p = new BytePointer(64)) {
            assertFalse(buffers.deliver(s, p, 64), "shut before any session");
            assertFalse(buffers.deliver(s, p, 0), "an empty buffer");
            assertEquals(1, buffers.outsideSession(), "the empty one is not counted");
            buffers.open();
            assertTrue(buffers.deliver(s, p, 0), "an empty buffer reaches the session");
            assertTrue(buffers.deliver(null, p, 64), "open with no receiver: let go, nothing counted");
            buffers.closeAndDrain();
            assertFalse(buffers.deliver(s, p, 8));
        }
        assertEquals(List.of(0L), s.sizes);
        assertEquals(1, buffers.delivered());
        assertEquals(0, buffers.deliveredBytes());
        assertEquals(2, buffers.outsideSession());
    }

    @Test
    void aReceiversFailureIsCountedNotThrown() {
        CompletedBuffers buffers = new CompletedBuffers("an MSPTI buffer");
        buffers.open();
        Session s = new Session();
        s.fail = new IllegalStateException("record 3 is cut");
        try (BytePointer p = new BytePointer(32)) {
            assertTrue(buffers.deliver(s, p, 32));
            s.fail = null;
            assertTrue(buffers.deliver(s, p, 16));
        }
        assertEquals(1, s.stats.invalidRecords());
        assertEquals("decoding an MSPTI buffer failed: java.lang.IllegalStateException: record 3 is cut", s.stats.problems());
        assertEquals(List.of(16L), s.sizes);
        assertEquals(2, buffers.delivered(), "a failed buffer was still handed over");
        assertEquals(48, buffers.deliveredBytes());
    }

    @Test
    void closingWaitsForTheCompletionsInsideAndOneSessionReceivesOneAtATime() throws Exception {
        CompletedBuffers buffers = new CompletedBuffers("a CUPTI buffer");
        buffers.open();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try (BytePointer p = new BytePointer(64)) {
            Session s = new Session();
            List<Future<Boolean>> all = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                all.add(pool.submit(() -> buffers.deliver(s, p, 64)));
            }
            for (Future<Boolean> f : all) {
                assertTrue(f.get(60, TimeUnit.SECONDS));
            }
            assertEquals(0, s.overlaps, "the session's lock: never two buffers at once");
            assertEquals(400, s.sizes.size());

            Session slow = new Session();
            slow.entered = new CountDownLatch(1);
            slow.release = new CountDownLatch(1);
            Future<Boolean> inside = pool.submit(() -> buffers.deliver(slow, p, 64));
            assertTrue(slow.entered.await(60, TimeUnit.SECONDS));
            CountDownLatch closed = new CountDownLatch(1);
            Future<?> closer = pool.submit(() -> {
                buffers.closeAndDrain();
                closed.countDown();
            });
            assertFalse(closed.await(200, TimeUnit.MILLISECONDS), "the close waits while a completion is inside");
            assertFalse(buffers.deliver(slow, p, 64), "but no new completion enters");
            slow.release.countDown();
            assertTrue(inside.get(60, TimeUnit.SECONDS));
            closer.get(60, TimeUnit.SECONDS);
            assertEquals(List.of(64L), slow.sizes);
            assertEquals(401, buffers.delivered());
            assertEquals(1, buffers.outsideSession());
        } finally {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(60, TimeUnit.SECONDS));
        }
    }
}
