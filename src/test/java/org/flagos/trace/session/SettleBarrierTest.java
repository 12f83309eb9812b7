package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.lmax.disruptor.dsl.ProducerType;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.flagos.trace.capture.CapturePipeline;
import org.flagos.trace.capture.TraceFormat;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.UnavailableTracer;
import org.flagos.trace.stages.CaptureWindowFilter;
import org.flagos.trace.stages.TraceHeader;
import org.flagos.trace.testing.AvailableTracer;
import org.junit.jupiter.api.Test;

/**
 * The flush barriers' thread ({@link SettleBarrier}; its two settings are {@link SettleBarrierSettingsTest}'s):
 * which tracers get barriers at all, that a flush is asked for only in a period where ops were opened and
 * no buffer arrived, that only a flush the tracer did reaches the walk as a barrier, that what a flush
 * handed over is not taken for records arriving next period, and that a failing flush stops the barriers
 * with one warning instead of failing the capture. Periods are 1 ms; the test waits on what the thread
 * did (calls to the tracer), never on time.
 */
class SettleBarrierTest {
    /** A tracer that is there and does nothing else, its clock at 0; the fakes below say how it flushes. */
    private abstract static class StubTracer extends AvailableTracer {
        @Override
        public long timestampNs() {
            return 0;
        }
    }

    /**
     * A tracer that can flush mid-session. It logs each call the barrier thread makes (not those of
     * {@code prepare} and {@code start}): {@code B} for {@code buffersDelivered()}, {@code F} for {@code flush()}.
     */
    private static final class FlushingTracer extends StubTracer {
        final StringBuffer calls = new StringBuffer();
        final AtomicLong buffers = new AtomicLong();
        /** Set: every period opens one more op (the session's count), as a busy program does. */
        AtomicLong opsOpenedEachPeriod;
        boolean buffersArriveEachPeriod;
        boolean flushHandsOverABuffer;
        boolean flushSucceeds = true;
        RuntimeException flushFailure;

        @Override
        public long buffersDelivered() {
            if (!onBarrierThread()) {
                return buffers.get();
            }
            calls.append('B');
            if (opsOpenedEachPeriod != null) {
                opsOpenedEachPeriod.incrementAndGet();
            }
            return buffersArriveEachPeriod ? buffers.incrementAndGet() : buffers.get();
        }

        @Override
        public boolean flush() {
            calls.append('F');
            if (flushFailure != null) {
                throw flushFailure;
            }
            if (flushHandsOverABuffer) {
                buffers.incrementAndGet();
            }
            return flushSucceeds;
        }

        private static boolean onBarrierThread() {
            return Thread.currentThread().getName().equals("flagtrace-settle-barrier");
        }

        long count(char call) {
            return calls.chars().filter(c -> c == call).count();
        }
    }

    private static CapturePipeline pipeline() {
        return CapturePipeline.builder().names(new NameTable()).apiNames(new UnavailableTracer("t").apiNames())
                .window(CaptureWindowFilter.unbounded()).header(new TraceHeader("t", List.of(), null, Map.of(), "p", 1))
                .format(TraceFormat.JSON).out(new ByteArrayOutputStream()).decodeStats(new DecodeStats())
                .producers(ProducerType.MULTI).build();
    }

    private static void await(String what, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "never happened: " + what);
            Thread.sleep(1);
        }
    }

    /**
     * Starts barriers every ms on a prepared pipeline that holds one op which launched nothing (the walk
     * counts barriers once something was drawn), their clock 10 s past it; the test stops them and
     * finishes the pipeline.
     */
    private static SettleBarrier start(FlushingTracer tracer, CapturePipeline pipeline, AtomicLong opsOpened) {
        assertTrue(SettleBarrier.prepare(tracer, pipeline, 1, 1_000_000L));
        pipeline.publish(new HostOp("data_loading", new ExternalId(1), 1, 1_000L, 2_000L));
        SettleBarrier barrier = SettleBarrier.start(tracer, pipeline, () -> 10_000_000_000L, opsOpened, 1);
        assertNotNull(barrier);
        return barrier;
    }

    @Test
    void noBarriersWithoutAPeriodOrForATracerThatCannotFlushMidSession() throws Exception {
        FlushingTracer flushing = new FlushingTracer();
        DeviceTracerWithoutCount uncounted = new DeviceTracerWithoutCount();
        UnavailableTracer unavailable = new UnavailableTracer("no device");
        try (CapturePipeline pipeline = pipeline()) {
            assertFalse(SettleBarrier.prepare(flushing, pipeline, 0, 1_000_000L), "period 0: none");
            assertNull(SettleBarrier.start(flushing, pipeline, () -> 0L, new AtomicLong(), 0));
            assertFalse(SettleBarrier.prepare(uncounted, pipeline, 100, 1_000_000L), "buffers not counted (-1): none");
            assertNull(SettleBarrier.start(uncounted, pipeline, () -> 0L, new AtomicLong(), 100));
            assertFalse(SettleBarrier.prepare(unavailable, pipeline, 100, 1_000_000L), "no tracer: none");
            assertNull(SettleBarrier.start(unavailable, pipeline, () -> 0L, new AtomicLong(), 100));
        }
        assertEquals("", flushing.calls.toString(), "no thread asked anything");
    }

    /** Available, and flushes, but does not count its buffers (the interface's -1). */
    private static final class DeviceTracerWithoutCount extends StubTracer {
        @Override
        public long buffersDelivered() {
            return -1;
        }

        @Override
        public boolean flush() {
            throw new AssertionError("flushed a tracer that does not count its buffers");
        }
    }

    @Test
    void anOpOpenedWhileNothingArrivesGetsOneFlushAndOneBarrier() throws Exception {
        FlushingTracer tracer = new FlushingTracer();
        AtomicLong opsOpened = new AtomicLong();
        CapturePipeline pipeline = pipeline();
        SettleBarrier barrier = start(tracer, pipeline, opsOpened);
        await("the thread read its starting counts", () -> tracer.count('B') >= 1);
        opsOpened.incrementAndGet();
        await("a flush", () -> tracer.count('F') == 1);
        await("five quiet periods after it", () -> tracer.count('B') >= 8);
        barrier.stop();
        pipeline.finish();
        assertEquals(1, tracer.count('F'), "no new op, no flush: " + tracer.calls);
        assertEquals(1, pipeline.accounting().flushBarriers());
        assertEquals(1, pipeline.accounting().opsSettledAtBarrier(), "the op that launched nothing settled at it");
    }

    @Test
    void noFlushWhileBuffersArriveOnTheirOwn() throws Exception {
        FlushingTracer tracer = new FlushingTracer();
        AtomicLong opsOpened = new AtomicLong();
        tracer.opsOpenedEachPeriod = opsOpened;
        tracer.buffersArriveEachPeriod = true;
        CapturePipeline pipeline = pipeline();
        SettleBarrier barrier = start(tracer, pipeline, opsOpened);
        await("ten periods", () -> tracer.count('B') >= 11);
        barrier.stop();
        pipeline.finish();
        assertEquals(0, tracer.count('F'), tracer.calls.toString());
        assertEquals(0, pipeline.accounting().flushBarriers());
    }

    @Test
    void aRefusedFlushPublishesNoBarrier() throws Exception {
        FlushingTracer tracer = new FlushingTracer();
        AtomicLong opsOpened = new AtomicLong();
        tracer.opsOpenedEachPeriod = opsOpened;
        tracer.flushSucceeds = false;
        CapturePipeline pipeline = pipeline();
        SettleBarrier barrier = start(tracer, pipeline, opsOpened);
        await("three flushes", () -> tracer.count('F') >= 3);
        barrier.stop();
        pipeline.finish();
        assertEquals(0, pipeline.accounting().flushBarriers());
    }

    @Test
    void whatAFlushHandedOverIsNotTakenForRecordsArrivingNextPeriod() throws Exception {
        FlushingTracer tracer = new FlushingTracer();
        AtomicLong opsOpened = new AtomicLong();
        tracer.opsOpenedEachPeriod = opsOpened;
        tracer.flushHandsOverABuffer = true;
        CapturePipeline pipeline = pipeline();
        SettleBarrier barrier = start(tracer, pipeline, opsOpened);
        await("five flushes", () -> tracer.count('F') >= 5);
        barrier.stop();
        pipeline.finish();
        // The starting read, then each period: its read, the flush, the read after it. A period that read the
        // flush's own buffer as news would show as a lone B.
        assertTrue(tracer.calls.toString().matches("B(BFB)+"), tracer.calls.toString());
        assertEquals(tracer.count('F'), pipeline.accounting().flushBarriers());
    }

    @Test
    void aFailingFlushStopsTheBarriersWithOneWarningAndFailsNothing() throws Exception {
        FlushingTracer tracer = new FlushingTracer();
        AtomicLong opsOpened = new AtomicLong();
        tracer.opsOpenedEachPeriod = opsOpened;
        tracer.flushFailure = new IllegalStateException("device lost");
        CapturePipeline pipeline = pipeline();
        PrintStream saved = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            SettleBarrier barrier = start(tracer, pipeline, opsOpened);
            await("the flush", () -> tracer.count('F') == 1);
            barrier.stop();
        } finally {
            System.setErr(saved);
        }
        pipeline.finish();
        assertEquals("BBF", tracer.calls.toString(), "no period after the failure");
        assertEquals("flagtrace[session] WARNING: flush barriers stopped: java.lang.IllegalStateException: device lost\n",
                err.toString(StandardCharsets.UTF_8));
        assertEquals(0, pipeline.accounting().flushBarriers());
    }
}
