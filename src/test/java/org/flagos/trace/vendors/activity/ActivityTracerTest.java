package org.flagos.trace.vendors.activity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.LongPointer;
import org.flagos.trace.model.ActivityBufferDecoder;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.BufferTap;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordSink;
import org.junit.jupiter.api.Test;

/**
 * The lifecycle every native tracer inherits, against a tracer whose vendor calls are scripted in
 * Java: loading once, the push gate, counted refusals, gated pops, a refused arming, and buffers
 * reaching the session only while it runs.
 */
class ActivityTracerTest {
    private static final RecordSink NO_SINK = new RecordSink() {
        @Override
        public <A> void publish(com.lmax.disruptor.EventTranslatorOneArg<org.flagos.trace.model.TraceRecord, A> t, A a) {
        }
    };

    /** A tracer whose library, arming and push/pop statuses the test sets. */
    static final class ScriptedTracer extends ActivityTracer<ActivityTracer.Session> {
        final AtomicInteger loads = new AtomicInteger();
        final List<String> calls = new ArrayList<>();
        final List<Integer> decodedBytes = new ArrayList<>();
        String loadFailure;
        boolean refuseSession;
        boolean armed = true;
        int pushStatus;
        int popStatus;
        int pops;

        ScriptedTracer(boolean gatedPops) {
            super("scripted", "a scripted buffer", gatedPops);
        }

        @Override
        protected String load() {
            loads.incrementAndGet();
            return loadFailure;
        }

        @Override
        protected Session newSession(RecordSink sink, NameTable names, DecodeStats stats, BufferTap tap) {
            calls.add("newSession");
            if (refuseSession) {
                return null;
            }
            ActivityBufferDecoder decoder = new ActivityBufferDecoder() {
                @Override
                public void decode(ByteBuffer buffer, RecordSink s, DecodeStats st) {
                    decodedBytes.add(buffer.remaining());
                }

                @Override
                public ApiNames apiNames() {
                    return null;
                }
            };
            return new Session(7, decoder, sink, stats, tap);
        }

        @Override
        protected boolean arm(Session session) {
            calls.add("arm");
            return armed;
        }

        @Override
        protected void disarm(Session session) {
            calls.add("disarm");
        }

        @Override
        protected void afterDrain(Session session) {
            calls.add("afterDrain:" + (session() == null ? "withdrawn" : "running"));
        }

        @Override
        protected int push(long externalId) {
            calls.add("push " + externalId);
            return pushStatus;
        }

        @Override
        protected int pop(LongPointer last) {
            pops++;
            return popStatus;
        }

        void closePopsForTest() {
            closePops();
        }

        void complete(BytePointer buffer, long size) {
            deliverFromNative(buffer, size);
        }

        @Override
        public ApiNames apiNames() {
            return null;
        }

        @Override
        public long timestampNs() {
            return 0;
        }
    }

    private static void start(ScriptedTracer tracer) {
        tracer.start(NO_SINK, new NameTable(), new DecodeStats(), BufferTap.NONE);
    }

    @Test
    void aLibraryIsLoadedOnceAndItsFailureIsOneSentence() {
        ScriptedTracer tracer = new ScriptedTracer(false);
        tracer.loadFailure = "scripted library libscripted.so could not be loaded: no such file";
        assertFalse(tracer.available());
        assertEquals(tracer.loadFailure, tracer.unavailableReason());
        start(tracer);
        assertEquals(1, tracer.loads.get(), "loaded once, however often asked");
        assertTrue(tracer.calls.isEmpty(), "no session on a library that did not load");
        assertFalse(tracer.pushCorrelation(new ExternalId(1)));
        assertEquals(tracer.loadFailure, assertThrows(IllegalStateException.class, () -> tracer.invoke("fakeLaunch", 0))
                .getMessage(), "no library to call into");
    }

    @Test
    void aTracerWithoutNamedEntryPointsRefusesInvoke() {
        assertThrows(UnsupportedOperationException.class, () -> new ScriptedTracer(false).invoke("fakeLaunch", 0));
    }

    @Test
    void pushesReachTheLibraryOnlyWhileASessionRunsAndRefusalsAreCounted() {
        ScriptedTracer tracer = new ScriptedTracer(false);
        assertTrue(tracer.available());
        assertEquals("", tracer.unavailableReason());
        assertFalse(tracer.pushCorrelation(new ExternalId(1)), "no session yet");
        start(tracer);
        assertTrue(tracer.pushCorrelation(new ExternalId(2)));
        tracer.popCorrelation();
        tracer.pushStatus = 5;
        tracer.popStatus = 1;
        assertFalse(tracer.pushCorrelation(new ExternalId(3)));
        tracer.popCorrelation();
        assertEquals(1, tracer.pushFailures());
        assertEquals(1, tracer.popFailures());
        tracer.stop();
        assertFalse(tracer.pushCorrelation(new ExternalId(4)), "stopped");
        assertEquals(List.of("newSession", "arm", "push 2", "push 3", "disarm", "afterDrain:withdrawn"), tracer.calls);
    }

    @Test
    void gatedPopsStayOutOfADetachedLibraryAndUngatedOnesNeverWait() {
        ScriptedTracer gated = new ScriptedTracer(true);
        start(gated);
        gated.popCorrelation();
        gated.closePopsForTest();
        gated.popCorrelation();
        assertEquals(1, gated.pops, "the pop after the close never reached the library");

        ScriptedTracer ungated = new ScriptedTracer(false);
        ungated.popCorrelation();
        assertEquals(1, ungated.pops, "a pop follows its push even with no session (it pushed before the stop)");
    }

    @Test
    void aRefusedArmingWithdrawsTheSessionAndARefusedSessionArmsNothing() {
        ScriptedTracer refusedArm = new ScriptedTracer(false);
        refusedArm.armed = false;
        start(refusedArm);
        assertFalse(refusedArm.pushCorrelation(new ExternalId(1)));
        refusedArm.stop();
        assertEquals(List.of("newSession", "arm"), refusedArm.calls, "nothing to stop");

        ScriptedTracer refusedSession = new ScriptedTracer(false);
        refusedSession.refuseSession = true;
        start(refusedSession);
        assertEquals(List.of("newSession"), refusedSession.calls);
        assertFalse(refusedSession.pushCorrelation(new ExternalId(1)));
    }

    @Test
    void buffersReachTheSessionOnlyWhileItRunsAndEmptyOnesAreNotDecoded() {
        ScriptedTracer tracer = new ScriptedTracer(false);
        try (BytePointer buffer = new BytePointer(64)) {
            tracer.complete(buffer, 16);
            start(tracer);
            tracer.complete(buffer, 0);
            tracer.complete(buffer, 32);
            tracer.stop();
            tracer.complete(buffer, 8);
        }
        assertEquals(List.of(32), tracer.decodedBytes);
        assertEquals(2, tracer.buffersOutsideSession(), "the buffers before the start and after the stop");
    }

    @Test
    void aShimLibraryThatLoadsNowhereNamesEveryPathTried() {
        VendorLibrary<BytePointer> none = VendorLibrary.open("scripted", List.of("liba.so", "/opt/libb.so"),
                (path, error, length) -> {
                    error.putString("cannot open " + path);
                    return null;
                });
        assertNull(none.handle());
        assertEquals("liba.so, /opt/libb.so", none.path());
        assertEquals("scripted library liba.so, /opt/libb.so could not be loaded: cannot open liba.so; cannot open /opt/libb.so",
                none.failure());
        VendorLibrary<BytePointer> second = VendorLibrary.open("scripted", List.of("liba.so", "libb.so"),
                (path, error, length) -> path.equals("libb.so") ? new BytePointer(1) : null);
        assertEquals("libb.so", second.path());
        assertEquals("", second.failure());
        assertEquals(List.of("libexplicit.so"), VendorLibrary.candidates("libexplicit.so", List.of("libdefault.so")));
    }

    /**
     * A buffer saved by a tap is decoded from the saved bytes: the vendor's memory is read once. On
     * the H200 the dump's copy of a buffer ended in an unwritten (zero) record that the decode a moment
     * later read whole, so the dump replayed to another trace than the session wrote. Here the tap
     * itself finishes the record in native memory after it copied it, as CUPTI's writer did.
     */
    @Test
    void aTappedBufferIsDecodedFromTheBytesTheTapSaved() {
        try (BytePointer nativeBuffer = new BytePointer(16)) {
            nativeBuffer.fill(0);
            nativeBuffer.putInt(0, 7);
            List<byte[]> saved = new ArrayList<>();
            List<byte[]> decoded = new ArrayList<>();
            BufferTap tap = new BufferTap() {
                @Override
                public void buffer(int dumpVendor, ByteBuffer validBytes) {
                    byte[] b = new byte[validBytes.remaining()];
                    validBytes.duplicate().get(b);
                    saved.add(b);
                    nativeBuffer.putInt(8, 9); // the writer finishes its record after the copy
                }

                @Override
                public void kernelName(long handle, String vendorName) {
                }
            };
            ActivityBufferDecoder decoder = new ActivityBufferDecoder() {
                @Override
                public void decode(ByteBuffer buffer, RecordSink sink, DecodeStats stats) {
                    byte[] b = new byte[buffer.remaining()];
                    buffer.duplicate().get(b);
                    decoded.add(b);
                }

                @Override
                public ApiNames apiNames() {
                    return null;
                }
            };
            ActivityTracer.Session session = new ActivityTracer.Session(1, decoder, NO_SINK, new DecodeStats(), tap);
            session.completed(nativeBuffer, 16);
            assertEquals(1, saved.size());
            assertEquals(java.util.Arrays.toString(saved.get(0)), java.util.Arrays.toString(decoded.get(0)));
            assertEquals(0, ByteBuffer.wrap(decoded.get(0)).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt(8),
                    "decoded as saved: the record still unwritten");
        }
    }
}
