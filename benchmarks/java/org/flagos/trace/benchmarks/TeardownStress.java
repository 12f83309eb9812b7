package org.flagos.trace.benchmarks;

import com.lmax.disruptor.EventTranslatorOneArg;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.Pointer;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.FltrbufFrames;
import org.flagos.trace.model.ActivityBufferDecoder;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceTracer;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.session.OpScope;
import org.flagos.trace.session.Profiler;
import org.flagos.trace.session.ProfilerSession;
import org.flagos.trace.session.SessionOptions;
import org.flagos.trace.vendors.Vendors;
import org.flagos.trace.vendors.cupti.CuptiTracer;

/**
 * Live, NVIDIA only: sessions started and stopped in a loop while worker threads launch work
 * inside nested ops, the whole time. Each launch is a 4-byte {@code cudaMemsetAsync} whose fill
 * value is the low byte of the External id of the op it was launched in, so the device record
 * itself says which op it belongs to: every memset record must carry an External id whose low
 * byte equals its value. After every session its buffer dump is decoded again and checked, and so is
 * its trace ({@link TraceMemsetCheck}: the walk's attribution, host-op settling included);
 * flagtrace's invalid and undecodable counts must be 0; records CUPTI reports dropped are listed
 * and summed (see {@code TOLERATE_VENDOR_DROPS}). Records that came
 * after their op settled are counted and reported, not a failure (they keep their own External id).
 * {@code -Dflagtrace.opSettleRecords=N} with a small N makes them likelier (the bound grows from N as
 * records are seen late; other threads' buffers can still jump past it).
 *
 * <p>{@code java ... TeardownStress [sessions=200] [threads=8] [sessionMs=20] [dir]}; prints one
 * line per 20 sessions and a summary; exits 1 on the first failed check.
 */
public final class TeardownStress {
    /**
     * Records CUPTI reports dropped are listed per session and summed; {@code -Dstress.strictVendorDrops=true}
     * fails on the first (with CUPTI kept attached none were seen in 200 sessions; detached at every
     * stop, as by default, CUPTI drops a few at the start of some sessions while threads launch).
     */
    private static final boolean TOLERATE_VENDOR_DROPS = !Boolean.getBoolean("stress.strictVendorDrops");
    private static final AtomicReference<ProfilerSession> CURRENT = new AtomicReference<>();
    private static final AtomicBoolean DONE = new AtomicBoolean();
    private static final AtomicLong LAUNCHES = new AtomicLong();
    private static final AtomicReference<Throwable> WORKER_FAILURE = new AtomicReference<>();

    public static void main(String[] args) throws Exception {
        int sessions = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        long sessionMs = args.length > 2 ? Long.parseLong(args[2]) : 20;
        Path dir = args.length > 3 ? Path.of(args[3]) : Files.createTempDirectory("flagtrace-stress-");
        DeviceTracer tracer = Profiler.init();
        if (!tracer.available()) {
            throw new IllegalStateException("tracer unavailable: " + tracer.unavailableReason());
        }
        CudaMemsetLoop.open(0).close(); // the process's first CUDA context, after CUPTI registered
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread w = new Thread(TeardownStress::work, "stress-worker-" + t);
            w.start();
            workers.add(w);
        }
        long memsets = 0;
        long bindings = 0;
        long traceMemsets = 0;
        long allDumpMemsets = 0;
        long outsideWindow = 0;
        long lateRecords = 0;
        long settleBound = 0;
        long dropSessions = 0;
        long droppedTotal = 0;
        long starvedSessions = 0;
        long unwrittenBytes = 0;
        long t0 = System.nanoTime();
        try {
            for (int i = 0; i < sessions; i++) {
                Path trace = dir.resolve("s.json");
                Path dump = dir.resolve("s.fltrbuf");
                ProfilerSession session = Profiler.start(SessionOptions.to(trace).withDumpBuffers(dump));
                CURRENT.set(session);
                Thread.sleep(sessionMs);
                CURRENT.set(null);
                session.close();
                Check check = verify(dump);
                TraceMemsetCheck inTrace = TraceMemsetCheck.of(trace);
                long vendorDropped = tracer.droppedByVendor();
                var counts = session.accounting();
                traceMemsets += inTrace.memsets;
                lateRecords += counts.recordsAfterOpSettled();
                settleBound = Math.max(settleBound, counts.opSettleRecords());
                if (inTrace.misattributed > 0) {
                    throw new IllegalStateException("session " + i + ": in the trace " + inTrace.misattributed + " of " + inTrace.memsets
                            + " memsets on the wrong op (first: " + inTrace.first + ")");
                }
                // Every memset the vendor delivered is in the trace or counted outside the capture window.
                long windowDropped = counts.droppedOutsideWindow(EventKind.MEMSET);
                if (check.allMemsets != inTrace.allMemsets + windowDropped) {
                    throw new IllegalStateException("session " + i + ": " + check.allMemsets + " memsets in the dump, " + inTrace.allMemsets
                            + " in the trace and " + windowDropped + " counted outside the capture window");
                }
                allDumpMemsets += check.allMemsets;
                outsideWindow += windowDropped;
                if (WORKER_FAILURE.get() != null) {
                    throw new IllegalStateException("a worker failed", WORKER_FAILURE.get());
                }
                if (vendorDropped > 0 && TOLERATE_VENDOR_DROPS) {
                    dropSessions++;
                    droppedTotal += vendorDropped;
                    System.out.println("[stress] session " + i + ": CUPTI dropped " + vendorDropped + " (" + check.memsets + " memsets delivered)");
                    vendorDropped = 0;
                }
                if (check.memsets == 0 && counts.hostOps() == 0) {
                    // No op ran in the window: the workers were starved (2 hogs per core pair), nothing lost.
                    starvedSessions++;
                    System.out.println("[stress] session " + i + ": no op ran in its " + sessionMs + " ms (workers starved)");
                }
                unwrittenBytes += counts.decode().unwrittenBytes();
                if (check.unwrittenBytes != counts.decode().unwrittenBytes()) {
                    throw new IllegalStateException("session " + i + ": the dump has " + check.unwrittenBytes
                            + " unwritten bytes, the live decode " + counts.decode().unwrittenBytes() + ": they read different bytes");
                }
                if (check.misattributed > 0 || vendorDropped > 0 || counts.decode().invalidRecords() > 0
                        || counts.decode().undecodableBytes() > 0 || (check.memsets == 0 && counts.hostOps() > 0)) {
                    throw new IllegalStateException("session " + i + ": " + check.memsets + " memsets bound to an op (" + counts.hostOps() + " ops; in the dump "
                            + check.allMemsets + " memsets, " + check.bindings + " bindings, unwritten bytes " + check.unwrittenBytes
                            + "; ops open at the stop " + counts.hostOpsOpenAtStop() + ", decoded " + counts.decode().publishedTotal() + "), " + check.misattributed
                            + " attributed to the wrong op (first: " + check.first + "), CUPTI dropped " + vendorDropped
                            + ", invalid " + counts.decode().invalidRecords() + ", undecodable bytes " + counts.decode().undecodableBytes()
                            + " (" + counts.decode().problems() + ")");
                }
                memsets += check.memsets;
                bindings += check.bindings;
                if ((i + 1) % 20 == 0) {
                    System.out.println("[stress] " + (i + 1) + " sessions; this one: " + check.memsets + " memsets all on their op, "
                            + "incomplete at stop " + counts.decode().incompleteRecords() + ", ring-full waits " + counts.ringFullWaits() + ", ops kept aside " + counts.opsSpilled()
                            + "; buffers after a stop so far " + (tracer instanceof CuptiTracer ? ((CuptiTracer) tracer).buffersAfterStop() : 0)
                            + "; in the trace " + inTrace.memsets + " memsets all on their op, records after their op settled so far "
                            + lateRecords + " (bound up to " + settleBound + ")");
                }
                Files.deleteIfExists(trace);
                Files.deleteIfExists(dump);
                Files.deleteIfExists(dir.resolve("s.ops.jsonl"));
                Files.deleteIfExists(dir.resolve("s.names.tsv"));
                Files.deleteIfExists(dir.resolve("s.devices.json"));
            }
        } finally {
            DONE.set(true);
            for (Thread w : workers) {
                w.join();
            }
        }
        System.out.printf("[stress] PASS: %d sessions x %d threads, %d launches, %d memset records checked (%d bindings),"
                + " 0 attributed to the wrong op, CUPTI dropped %d (in %d sessions), invalid 0; in the traces %d memsets, 0 on the wrong op;"
                + " records after their op settled %d (host-op settling bound up to %d records); of %d memsets in the dumps,"
                + " %d in the traces and %d counted outside the capture window, none lost; unwritten at a stop %d bytes;"
                + " sessions with no op (starved) %d; %.1f s%n",
                sessions, threads, LAUNCHES.get(), memsets, bindings, droppedTotal, dropSessions, traceMemsets, lateRecords, settleBound,
                allDumpMemsets, allDumpMemsets - outsideWindow, outsideWindow, unwrittenBytes, starvedSessions,
                (System.nanoTime() - t0) / 1e9);
    }

    /** Launches forever: outside sessions plain, inside them nested ops (outer 2 launches, inner 2). */
    private static void work() {
        Pointer buffer = new Pointer();
        CudaMemsetLoop.check(cudart.cudaMalloc(buffer, CudaMemsetLoop.BYTES), "cudaMalloc");
        try {
            while (!DONE.get()) {
                ProfilerSession s = CURRENT.get();
                if (s == null) {
                    launch(buffer, 0xff);
                    continue;
                }
                try (OpScope outer = s.op("stress::outer")) {
                    launch(buffer, (int) (outer.externalId() & 0xff));
                    try (OpScope inner = s.op("stress::inner")) {
                        // An inner op opened while or after the session stopped is inert (id -1): its
                        // work belongs to the innermost op whose id is on CUPTI's stack, the outer one.
                        long owner = inner.externalId() >= 0 ? inner.externalId() : outer.externalId();
                        launch(buffer, (int) (owner & 0xff));
                        launch(buffer, (int) (owner & 0xff));
                    }
                    launch(buffer, (int) (outer.externalId() & 0xff));
                }
                cudart.cudaStreamSynchronize(null);
            }
        } catch (Throwable e) {
            WORKER_FAILURE.compareAndSet(null, e);
        } finally {
            cudart.cudaFree(buffer);
        }
    }

    private static void launch(Pointer buffer, int value) {
        CudaMemsetLoop.check(cudart.cudaMemsetAsync(buffer, value, CudaMemsetLoop.BYTES), "cudaMemsetAsync");
        LAUNCHES.incrementAndGet();
    }

    private static final class Check implements RecordSink {
        final java.util.Map<Long, Integer> values = new java.util.HashMap<>();
        final java.util.Map<Long, Long> external = new java.util.HashMap<>();
        final TraceRecord slot = new TraceRecord();
        long memsets;
        long allMemsets;
        long bindings;
        long misattributed;
        long unwrittenBytes;
        String first = "none";

        @Override
        public <A> void publish(EventTranslatorOneArg<TraceRecord, A> translator, A source) {
            translator.translateTo(slot, 0, source);
            if (slot.type == RecordType.CORRELATION_BINDING) {
                external.put(slot.correlation(), slot.externalId());
                bindings++;
            } else if (slot.type == RecordType.ACTIVITY && slot.kind == EventKind.MEMSET) {
                values.put(slot.correlation(), slot.memsetValue);
            }
        }

        void join() {
            allMemsets = values.size();
            for (var e : values.entrySet()) {
                Long id = external.get(e.getKey());
                if (id == null) {
                    continue; // launched outside any op, or in an op opened after its session closed
                }
                memsets++;
                if ((id & 0xff) != e.getValue()) {
                    misattributed++;
                    if (misattributed == 1) {
                        first = "correlation " + e.getKey() + " External id " + id + " value " + e.getValue();
                    }
                }
            }
        }
    }

    private static Check verify(Path dump) {
        FltrbufFrames frames = new FltrbufFrames(CaptureBytes.load(dump), dump.toString());
        ActivityBufferDecoder decoder = Vendors.decoderFor(1).create(org.flagos.trace.model.KernelNames.NONE, new NameTable(), List.of());
        Check check = new Check();
        DecodeStats stats = new DecodeStats();
        while (frames.next()) {
            decoder.decode(frames.payload(), check, stats);
        }
        if (stats.invalidRecords() > 0 || stats.undecodableBytes() > 0) {
            throw new IllegalStateException("the dump does not decode cleanly: " + stats.problems());
        }
        check.unwrittenBytes = stats.unwrittenBytes();
        check.join();
        return check;
    }

    private TeardownStress() {
    }
}
