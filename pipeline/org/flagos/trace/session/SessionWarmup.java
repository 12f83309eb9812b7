package org.flagos.trace.session;

import com.lmax.disruptor.EventTranslatorOneArg;
import com.lmax.disruptor.dsl.ProducerType;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.IntPredicate;
import org.flagos.trace.capture.CapturePipeline;
import org.flagos.trace.capture.TraceFormat;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.ClockAnchor;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.Diagnostics;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.model.MemoryKind;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RealtimeClock;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.SyncKind;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.stages.CaptureAccounting;
import org.flagos.trace.stages.CaptureWindowFilter;
import org.flagos.trace.stages.TraceHeader;

/**
 * Small synthetic captures through a live session's pipeline, on a background thread started by
 * {@link Profiler#init()}, written to nothing: so that a JVM's first session does not run the
 * stages, the host-op ledger and the JSON sink in cold code. Measured (2026-12-02): the first
 * session of a JVM closed in 0.23-0.31 s on the H200 against 0.13-0.17 s for later ones, its
 * stages falling behind the launch loop while interpreted (ring waits, ops kept aside) and its
 * close settling the held ops in code not yet compiled.
 *
 * <p>Each synthetic op is what a launch inside an op makes: a binding, a runtime call and a memset
 * on the vendor's side, the op itself from the host, published before its records as in a session;
 * ops are held and settled as a session's are, the last of them at the end as its close does. What
 * else a session's walk meets is shown too, since C2 compiles a branch never taken as a trap that
 * throws the whole compiled method away the first time it is taken (measured on the CPU probe: the
 * walk's {@code onEvent}, the stages' {@code onEvent} and the window's filter deoptimized in the
 * first session's close, at its synchronization, overhead and after-the-window records and at the
 * end of the capture): a synchronization outside every op and an overhead record every 64 ops, a
 * record past the window's end, the close's clock re-check and anchors in the footer. And several
 * captures, short ones after the main one for about a second, so that the traps a capture's start
 * and end set off happen in the warm-up and what they threw away is compiled again before a session
 * needs it.
 *
 * <p>The ring is a quarter of a session's (4 MiB of slots less to hold beside the first session); the producer outruns the stages and waits, as a first session's
 * buffer thread does. {@code -Dflagtrace.warmup=false} turns it off, {@code true} runs
 * it whether or not a device tracer is available (by default only with one, for the sessions whose
 * close it shortens). Nothing is written and no thread outlives it: the pipeline's stage threads
 * end with it, the warming thread is a daemon at the lowest priority.
 */
final class SessionWarmup {
    /** The system property: {@code auto} (the default), {@code true} or {@code false}. */
    static final String PROPERTY = "flagtrace.warmup";
    /** Ops in the main synthetic capture ({@code -Dflagtrace.warmup.ops}). */
    static final int OPS = Integer.getInteger("flagtrace.warmup.ops", 30_000);
    /** Ops in the short capture walked before the main one. */
    static final int FIRST_OPS = 5_000;
    /** Ops in each short capture walked after the main one, for {@link #TAIL_MS} ({@code -Dflagtrace.warmup.tailMs}) at most. */
    static final int TAIL_OPS = 2_000;
    static final long TAIL_MS = Long.getLong("flagtrace.warmup.tailMs", 1_000);
    /** Short captures walked after the main one at most, however short they are. */
    static final int TAIL_CAPTURES = 100;
    /**
     * Set when a session starts: no tail capture begins after it. A tail walked beside a session
     * competes with it for the cores and the compiler, and warms nothing that session still needs:
     * on the H200 (2026-12-02, 8 cores pinned) a JVM's first session added 0.24 µs more per launch
     * than raw CUPTI's with the tail running beside it (13 pairs), +0.02 µs once it stopped there (6
     * pairs), -0.12 µs before the tail existed; and the first close was no faster with it (0.083 s
     * median, 0.088 s without, 6 JVMs each).
     */
    private static volatile boolean sessionStarted;
    private static final int CBID = 51; // the runtime call's id; its name does not matter here
    private static final int CBID_SYNCHRONIZE = 165; // a synchronizing call outside every op
    /**
     * Ops whose host op is published before their records, as in a live session: an op closes right
     * after its launches, and their records come later, in the vendor's buffer that holds them. A
     * fraction of CUPTI's 1 MiB buffer of these launches (about 6,900), well inside any bound.
     */
    private static final int CHUNK_OPS = 4_096;
    /** One op in this many is followed by a synchronization outside every op and an overhead record. */
    private static final int SYNC_EVERY = 64;

    private static final EventTranslatorOneArg<TraceRecord, long[]> BINDING = (slot, sequence, op) -> slot.binding(op[0], op[0]);
    private static final EventTranslatorOneArg<TraceRecord, long[]> RUNTIME =
            (slot, sequence, op) -> runtime(slot, op, CBID, 100, 900, op[0]);
    private static final EventTranslatorOneArg<TraceRecord, long[]> MEMSET = (slot, sequence, op) -> {
        slot.activity(EventKind.MEMSET, op[1] + 2_000, op[1] + 3_000, op[0]);
        slot.device = 0;
        slot.context = 1;
        slot.stream = 7;
        slot.bytes = 4;
        slot.memsetValue = (int) (op[0] & 0xff);
        slot.presentAll(RecordField.CONTEXT.bit() | RecordField.BYTES.bit() | RecordField.MEMSET_VALUE.bit());
        slot.memoryKind = MemoryKind.DEVICE;
    };

    /** The synchronizing call outside every op: no binding, so the walk meets a call no op claims. */
    private static final EventTranslatorOneArg<TraceRecord, long[]> SYNC_CALL =
            (slot, sequence, op) -> runtime(slot, op, CBID_SYNCHRONIZE, 4_100, 4_900, op[4]);
    /** Its record: a context synchronization (no stream), drawn on the device's row. */
    private static final EventTranslatorOneArg<TraceRecord, long[]> SYNC = (slot, sequence, op) -> {
        slot.activity(EventKind.SYNC, op[1] + 4_200, op[1] + 4_800, op[4]);
        slot.device = 0;
        slot.context = 1;
        slot.stream = -1;
        slot.present(RecordField.CONTEXT);
        slot.syncKind = SyncKind.CONTEXT;
        slot.syncEventId = -1;
    };
    /** The vendor's own time (CUPTI's OVERHEAD records: a buffer flush). */
    private static final EventTranslatorOneArg<TraceRecord, long[]> OVERHEAD = (slot, sequence, op) -> {
        slot.clear();
        slot.type = RecordType.ACTIVITY;
        slot.kind = EventKind.OVERHEAD;
        slot.startNs = op[1] + 4_300;
        slot.endNs = op[1] + 4_400;
        slot.label = "Buffer Flush";
    };

    /**
     * The one runtime-call record of both call translators: call {@code cbid} of op {@code op}'s
     * thread ({@code op[2]} its process, {@code op[3]} its thread), from {@code fromNs} to
     * {@code toNs} after the op's start ({@code op[1]}), of vendor correlation {@code correlation}.
     */
    private static void runtime(TraceRecord slot, long[] op, int cbid, long fromNs, long toNs, long correlation) {
        slot.activity(EventKind.RUNTIME, op[1] + fromNs, op[1] + toNs, correlation);
        slot.cbid = cbid;
        slot.present(RecordField.CBID);
        slot.processId = (int) op[2];
        slot.threadId = op[3];
    }

    private SessionWarmup() {
    }

    /** Starts the warm-up when the property asks for it ({@code tracerAvailable}: the default's condition). */
    static void startIfWanted(boolean tracerAvailable, ApiNames apiNames) {
        startIfWanted(tracerAvailable, apiNames, 0);
    }

    /**
     * As {@link #startIfWanted(boolean, ApiNames)}, settling ops after {@code settleRecords} as the
     * sessions of the tracer will ({@code ProfilerSession}'s bound), so the path they take while they
     * run (ops settling and rows written as records come) is the one warmed.
     */
    static void startIfWanted(boolean tracerAvailable, ApiNames apiNames, int settleRecords) {
        String setting = System.getProperty(PROPERTY, "auto");
        if (setting.equals("false") || setting.equals("auto") && !tracerAvailable) {
            return;
        }
        Thread warming = new Thread(() -> {
            // A branch C2 compiled as never taken deoptimizes its method when first taken, and only
            // then is it compiled as a branch. A capture's once-only paths (its first record, its
            // end, the held ops settled at once, the record past the window) are such branches, and
            // the walk's compiled code met them in the first session, at its start and in its close,
            // walking much of it in slower code. So: a short capture (an end of capture in the
            // profile early), the long one, then short captures for TAIL_MS, so that these paths
            // trap here and what they threw away is compiled again and run through a capture's start
            // and end before a session needs it.
            walkCaptures(TAIL_MS, () -> sessionStarted, ops -> run(ops, apiNames, settleRecords) >= 0);
        }, "flagtrace-warmup");
        warming.setDaemon(true);
        warming.setPriority(Thread.MIN_PRIORITY);
        warming.start();
    }

    /** A session started (the tail stops); once is enough, later calls change nothing. */
    static void sessionStarted() {
        if (!sessionStarted) {
            sessionStarted = true;
        }
    }

    /**
     * The warm-up's captures in order, each walked by {@code capture} given its ops (false: it failed,
     * and none after it is walked): {@link #FIRST_OPS}, {@link #OPS}, then {@link #TAIL_OPS} for
     * {@code tailMs} counted from the end of the main one, {@link #TAIL_CAPTURES} of them at most,
     * none once {@code sessionStarted} says so.
     */
    static void walkCaptures(long tailMs, BooleanSupplier sessionStarted, IntPredicate capture) {
        long until = 0;
        for (int n = 0; n < 2 + TAIL_CAPTURES; n++) {
            boolean tail = n >= 2;
            if (n == 2) {
                until = System.nanoTime() + tailMs * 1_000_000L;
            }
            if (tail && (System.nanoTime() >= until || sessionStarted.getAsBoolean())
                    || !capture.test(n == 0 ? FIRST_OPS : tail ? TAIL_OPS : OPS)) {
                return;
            }
        }
    }

    /**
     * Runs one synthetic capture of {@code ops} ops into nothing; returns the trace events walked,
     * or -1 when it failed (reported with FLAGOS_TRACE, never thrown).
     */
    static long run(int ops, ApiNames apiNames) {
        return run(ops, apiNames, 0);
    }

    /** As {@link #run(int, ApiNames)}, ops settling after {@code settleRecords} (0: the join's horizon). */
    static long run(int ops, ApiNames apiNames, int settleRecords) {
        Walked walked = walk(ops, apiNames, settleRecords);
        return walked == null ? -1 : walked.events();
    }

    /** What one warm-up walked: its trace events and its counts; for tests. */
    record Walked(long events, CaptureAccounting accounting) {
    }

    /** The warm-up's capture; null when it failed (reported with FLAGOS_TRACE, never thrown). */
    static Walked walk(int ops, ApiNames apiNames, int settleRecords) {
        long began = System.nanoTime();
        int chunk = settleRecords > 0 ? Math.max(1, Math.min(CHUNK_OPS, settleRecords / 8)) : CHUNK_OPS;
        NameTable names = new NameTable();
        long pid = ProcessHandle.current().pid();
        long tid = Thread.currentThread().getId();
        long base = System.currentTimeMillis() * 1_000_000L;
        CaptureWindowFilter window = new CaptureWindowFilter(base, Long.MAX_VALUE);
        TraceHeader header = new TraceHeader("warmup.json", List.of(), null, Map.of(), "warmup", pid);
        CapturePipeline pipeline = CapturePipeline.builder().names(names).apiNames(apiNames).window(window).header(header)
                .format(TraceFormat.JSON).out(OutputStream.nullOutputStream()).decodeStats(new DecodeStats())
                .producers(ProducerType.MULTI).build();
        pipeline.settleOpsAfter(settleRecords);
        try {
            long[] op = {0, 0, pid, tid, 0};
            // In chunks, in a live session's order: each op's host op first (it closes right after its
            // launches), its records after (they come in the vendor's buffer), now and then a
            // synchronization outside every op and the vendor's overhead, as a session's last buffers
            // hold: a record kind the warm-up never showed would throw the walk's compiled code away
            // the first time a session meets it, typically in its close.
            for (int first = 0; first < ops; first += chunk) {
                int end = Math.min(ops, first + chunk);
                for (int i = first; i < end; i++) {
                    long start = base + i * 5_000L;
                    pipeline.publish(new HostOp("warmup", new ExternalId(i), tid, start, start + 4_000, "flagtrace-warmup"));
                }
                for (int i = first; i < end; i++) {
                    op[0] = i;
                    op[1] = base + i * 5_000L;
                    pipeline.publish(BINDING, op);
                    pipeline.publish(RUNTIME, op);
                    pipeline.publish(MEMSET, op);
                    if (i % SYNC_EVERY == SYNC_EVERY - 1) {
                        op[4] = ops + i; // a correlation id no launch uses
                        pipeline.publish(SYNC_CALL, op);
                        pipeline.publish(SYNC, op);
                        pipeline.publish(OVERHEAD, op);
                    }
                }
            }
            long windowEnd = base + ops * 5_000L;
            window.windowEnd(windowEnd);
            // A session's last buffer also holds what ended after its stop: dropped outside the window.
            op[1] = windowEnd;
            pipeline.publish(OVERHEAD, op);
            // What only a session's close adds to the capture: the host clock measured again, the
            // clock anchors, the vendor's drops, each written into the footer.
            HostClock clock = new HostClock(RealtimeClock::nowNs);
            pipeline.accounting().hostClock(clock.recheck());
            pipeline.accounting().clockAnchors(List.of(ClockAnchor.take("stop", System::nanoTime, RealtimeClock::nowNs, clock::at)));
            pipeline.accounting().vendorDropped(0);
            pipeline.finish();
            if (Diagnostics.enabled()) {
                Diagnostics.trace("session", "warm-up: " + ops + " synthetic ops walked in " + (System.nanoTime() - began) / 1_000 + " µs");
            }
            return new Walked(pipeline.events(), pipeline.accounting());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (RuntimeException e) {
            Diagnostics.trace("session", "warm-up failed (sessions are unaffected): " + e);
            return null;
        } finally {
            pipeline.close();
        }
    }
}
