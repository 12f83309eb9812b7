package org.flagos.trace.session;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.flagos.trace.capture.FailureWords;
import org.flagos.trace.model.DeviceTracer;
import org.flagos.trace.model.Diagnostics;
import org.flagos.trace.model.HostOpMarker;

/**
 * torch.profiler's {@code profile(schedule=..., on_trace_ready=...)} with {@code step()}: a session
 * whose program calls {@link #step()} once per iteration, and whose {@link StepSchedule} says which
 * steps are recorded. Each cycle of recorded steps becomes one trace, handed to the
 * {@link TraceReadyHandler} (by default one file per cycle named as torch's TensorBoard handler
 * names them).
 *
 * <pre>{@code
 * StepSchedule schedule = StepSchedule.builder().waitSteps(1).warmup(1).active(3).repeat(2).build();
 * try (ScheduledSession session = Profiler.start(ScheduleOptions.in(Path.of("log"), schedule))) {
 *     for (Batch batch : batches) {
 *         try (OpScope op = session.op("train")) {
 *             train(batch);
 *         }
 *         session.step();
 *     }
 * } // log/HOST_PID.EPOCH_NS.pt.trace.json, one per cycle, all on disk here
 * }</pre>
 *
 * <p>As in torch: steps count from 0; step {@code N}'s op is {@code ProfilerStep#N}, a user annotation
 * (drawn as torch draws it, {@code user_annotation}), from the call
 * that began the step (the session's start for step 0, else {@link #step()}) to the next call
 * ({@link #step()} or {@link #close()}), and encloses the ops the step's thread opens in between.
 * The transitions are torch's: the tracer is armed at a cycle's first warmup step (or its first
 * active step without warmup), so its start-up cost falls outside the recorded steps; what it
 * delivers before the first active step is dropped (counted as outside the window). At the
 * cycle's last active step's end the window closes and the tracer is disarmed; the trace is then
 * completed and handed over on the session's trace-ready thread while the program goes on (with
 * {@value #BACKLOG} completed cycles already waiting for it, {@link #step()} waits). During
 * skipped and waiting steps no activity kind is armed and {@link #op} records nothing and calls
 * nothing. Closing the session in the middle of a cycle hands over what was recorded (torch's
 * behaviour); closing it during warmup discards the armed cycle.
 *
 * <p>Thread-safety: {@link #op} may be called from any thread at any time (an op opened outside
 * the recorded steps is inert). {@link #step()} and {@link #close()} are serialized; call them from
 * the thread that drives the steps: the {@code ProfilerStep} op belongs to that thread, and
 * {@link #step()} refuses, changing nothing, when called from another thread or while an op the
 * step's thread opened inside the step is still open. {@link #close()} returns after every handler
 * ran: no thread of the session outlives it.
 */
public final class ScheduledSession implements AutoCloseable, HostOpMarker {
    /** torch's step op name, {@code PROFILER_STEP_NAME + "#" + N}. */
    public static final String STEP_OP_PREFIX = "ProfilerStep#";
    /** Completed cycles that may wait for the trace-ready thread before {@link #step()} waits too. */
    static final int BACKLOG = 2;

    private final DeviceTracer tracer;
    private final ScheduleOptions options;
    private final ExecutorService ready;
    private final List<String> failures = new ArrayList<>();
    // Written under the session's lock, read without it (a handler may read them while step() waits for it).
    private volatile long step;
    private volatile StepAction action;
    /** The armed cycle (warmup or recording), or null. */
    private ProfilerSession armed;
    /** The armed cycle while it records: what {@link #op} opens ops on. */
    private volatile ProfilerSession recording;
    private long firstRecordedStep;
    private volatile int cycles;
    private OpScope stepOp;
    private boolean closed;
    private volatile Thread readyThread;

    private ScheduledSession(DeviceTracer tracer, ScheduleOptions options) {
        this.tracer = tracer;
        this.options = options;
        // One thread, created with the first completed cycle, ended by close(): handlers run in cycle
        // order. Each cycle waiting for it holds its pipeline (a ring of 65,536 slots): past
        // BACKLOG of them, step() waits for the oldest, as torch's step() always does.
        this.ready = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(BACKLOG), r -> {
            Thread t = new Thread(r, "flagtrace-trace-ready");
            t.setDaemon(true); // a session never closed must not keep the JVM alive
            readyThread = t;
            return t;
        }, (task, executor) -> {
            try {
                executor.getQueue().put(task); // only step() and close() submit, before shutdown
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.util.concurrent.RejectedExecutionException("interrupted while waiting for the trace-ready thread", e);
            }
        });
    }

    static ScheduledSession open(DeviceTracer tracer, ScheduleOptions options) {
        try {
            Files.createDirectories(options.directory());
        } catch (IOException e) {
            throw new UncheckedIOException("can't create the trace directory " + options.directory() + ": "
                    + FailureWords.of(e), e);
        }
        if (options.schedule() instanceof CyclicSchedule cyclic && cyclic.warmup() == 0) {
            Diagnostics.warn("schedule", "warmup 0: the tracer's start-up cost falls into each cycle's first recorded step"
                    + " (torch warns the same)");
        }
        ProfilerSession.claimSlot();
        ScheduledSession session = new ScheduledSession(tracer, options);
        boolean started = false;
        try {
            synchronized (session) {
                session.action = session.actionOf(0);
                session.transit(StepAction.NONE, session.action);
                session.openStepOp();
            }
            started = true;
        } finally {
            if (!started) {
                session.ready.shutdownNow();
                ProfilerSession.releaseSlot();
            }
        }
        return session;
    }

    /**
     * Opens a host op on the calling thread, recorded when the current step is recorded; inert
     * otherwise (nothing is read, pushed or published). As {@link ProfilerSession#op}.
     */
    @Override
    public OpScope op(String name) {
        ProfilerSession cycle = recording;
        return cycle == null ? OpScope.inert(name) : cycle.op(name);
    }

    /** As {@link #op(String)}, the op carrying {@code args} when recorded ({@link ProfilerSession#op(String, OpArgs)}). */
    @Override
    public OpScope op(String name, org.flagos.trace.model.OpArgs args) {
        ProfilerSession cycle = recording;
        return cycle == null ? OpScope.inert(name) : cycle.op(name, args);
    }

    /**
     * Signals that the next step begins: ends {@code ProfilerStep#N}, takes step {@code N+1}'s action
     * (arming, recording, completing a cycle as the schedule says) and opens {@code ProfilerStep#N+1}.
     *
     * @throws IllegalStateException after {@link #close()}; or, changing nothing, when called from a
     *                               thread other than the one that opened the current step's op, or
     *                               while an op opened inside the step is still open on this thread
     */
    public synchronized void step() {
        if (Thread.currentThread() == readyThread) {
            throw new IllegalStateException("step() from a trace-ready handler: steps belong to the program's thread");
        }
        if (closed) {
            throw new IllegalStateException("step() after the scheduled session closed");
        }
        checkStepOpClosable();
        closeStepOp();
        StepAction previous = action;
        step++;
        action = actionOf(step);
        transit(previous, action);
        openStepOp();
    }

    /** The number of the current step (0 until the first {@link #step()}). */
    public long currentStep() {
        return step;
    }

    /** What the current step does. */
    public StepAction currentAction() {
        return action;
    }

    /** Cycles recorded so far (handed over, being handed over, or discarded when a cycle failed). */
    public int cycles() {
        return cycles;
    }

    /** One line per cycle whose trace could not be completed or whose handler threw; complete after {@link #close()}. */
    public List<String> failures() {
        synchronized (failures) {
            return List.copyOf(failures);
        }
    }

    /**
     * Ends the current step and the session: a cycle being recorded is completed and handed over,
     * one warming up is discarded; returns once every handler ran. Idempotent.
     */
    @Override
    public void close() {
        if (Thread.currentThread() == readyThread) {
            throw new IllegalStateException("close() from a trace-ready handler: the session closes after its handlers return");
        }
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            try {
                if (stepOp != null && stepOp.thread() == Thread.currentThread().getId() && armed != null
                        && armed.innermost(stepOp)) {
                    closeStepOp();
                } else if (stepOp != null) {
                    Diagnostics.warn("schedule", "close() on another thread than step " + step
                            + "'s, or with an op of the step still open: " + stepOp.name() + " is left out of the trace");
                    stepOp = null;
                }
                transit(action, null);
            } finally {
                ready.shutdown();
            }
        }
        try {
            while (!ready.awaitTermination(1, TimeUnit.SECONDS)) {
                Diagnostics.trace("schedule", "waiting for the trace-ready handler to return");
            }
            // The pool counts as terminated a moment before its worker thread ends: wait for that too,
            // so that no thread of the session outlives close() (seen once in CI as a live thread).
            Thread worker = readyThread;
            if (worker != null) {
                worker.join();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ready.shutdownNow();
        } finally {
            ProfilerSession.releaseSlot();
        }
    }

    private StepAction actionOf(long n) {
        StepAction a = options.schedule().action(n);
        if (a == null) {
            throw new IllegalStateException("the step schedule returned no action for step " + n);
        }
        return a;
    }

    /** torch.profiler.profile's action table; {@code next} null: the session closes. */
    private void transit(StepAction previous, StepAction next) {
        switch (previous) {
            case NONE -> {
                if (next == StepAction.WARMUP) {
                    arm();
                } else if (next == StepAction.RECORD || next == StepAction.RECORD_AND_SAVE) {
                    arm();
                    record();
                }
            }
            case WARMUP -> {
                if (next == null || next == StepAction.NONE) {
                    if (next == StepAction.NONE) {
                        Diagnostics.warn("schedule", "incorrect schedule: WARMUP followed by NONE at step " + step
                                + "; the armed cycle is discarded");
                    }
                    discard();
                } else if (next != StepAction.WARMUP) {
                    record();
                }
            }
            case RECORD -> {
                if (next == null) {
                    handOver();
                } else if (next == StepAction.NONE || next == StepAction.WARMUP) {
                    // torch stops the trace without handing it over; so does this, saying so
                    Diagnostics.warn("schedule", "incorrect schedule: RECORD followed by " + next + " at step " + step
                            + "; the cycle is discarded");
                    discard();
                    if (next == StepAction.WARMUP) {
                        arm();
                    }
                }
            }
            case RECORD_AND_SAVE -> {
                if (next != null) {
                    handOver();
                    if (next != StepAction.NONE) {
                        arm();
                        if (next != StepAction.WARMUP) {
                            record();
                        }
                    }
                } else {
                    handOver();
                }
            }
            default -> throw new IllegalStateException("unknown step action " + previous);
        }
    }

    /** Arms the tracer for a new cycle: a session whose window is still shut. */
    private void arm() {
        String base = ".flagtrace-cycle-" + cycles + "-" + ProcessHandle.current().pid();
        Path trace = options.directory().resolve(base + (options.gzip() ? ".json.gz" : ".json"));
        SessionOptions cycle = options.cycle(trace, options.bufferDumps() ? options.directory().resolve(base + ".fltrbuf") : null);
        try {
            armed = ProfilerSession.cycle(tracer, cycle);
        } catch (IOException e) {
            throw new UncheckedIOException("arming the profiler at step " + step + " failed: " + FailureWords.of(e), e);
        }
        Diagnostics.trace("schedule", "step " + step + ": armed cycle " + cycles);
    }

    private void record() {
        if (armed == null) {
            return; // arming failed at an earlier step (said then): this cycle records nothing
        }
        armed.record();
        firstRecordedStep = step;
        recording = armed;
        Diagnostics.trace("schedule", "step " + step + ": recording cycle " + cycles);
    }

    /** Ends an armed cycle without a trace. */
    private void discard() {
        ProfilerSession cycle = armed;
        recording = null;
        armed = null;
        if (cycle != null) {
            cycle.discard();
        }
    }

    /**
     * Ends the recording cycle: its window closes and the tracer is disarmed here, so that the next
     * cycle may arm it; completing the trace and the handler run on the trace-ready thread.
     */
    private void handOver() {
        ProfilerSession cycle = armed;
        recording = null;
        armed = null;
        if (cycle == null) {
            return; // arming failed at an earlier step (said then)
        }
        int number = cycles++;
        long first = firstRecordedStep;
        long last = step - 1; // the step that just ended (or the current one at close)
        if (closed) {
            last = step;
        }
        Path path = cycle.traceTarget();
        cycle.stopTracer(); // on a failure it has released everything
        CycleTrace trace = new CycleTrace(number, first, last, cycle, path, cycle.dumpTarget(), options.suffix());
        ready.execute(() -> completeAndHandOver(cycle, trace));
    }

    private void completeAndHandOver(ProfilerSession cycle, CycleTrace trace) {
        try {
            cycle.complete(true);
        } catch (RuntimeException | Error e) {
            fail(trace + ": completing the trace failed: " + words(e));
            deleteLeft(trace);
            return;
        }
        try {
            options.onTraceReady().onTraceReady(trace);
        } catch (Exception | Error e) {
            fail(trace + ": the trace-ready handler failed: " + words(e));
        } finally {
            if (!trace.moved()) {
                deleteLeft(trace);
            }
        }
    }

    /** Deletes what the handler left of the cycle's files (its trace, its dump and sidecars, partial ones too). */
    private void deleteLeft(CycleTrace trace) {
        try {
            trace.deleteFiles();
        } catch (IOException e) {
            fail(trace + ": deleting the trace the handler left failed: " + FailureWords.of(e));
        }
    }

    private void fail(String line) {
        Diagnostics.warn("schedule", line);
        synchronized (failures) {
            failures.add(line);
        }
    }

    private static String words(Throwable e) {
        if (e instanceof IOException io) {
            return FailureWords.of(io);
        }
        String message = e.getMessage();
        return e.getClass().getSimpleName() + (message == null ? "" : ": " + message.lines().findFirst().orElse(""));
    }

    private void openStepOp() {
        ProfilerSession cycle = recording;
        if (cycle != null) {
            stepOp = cycle.annotation(STEP_OP_PREFIX + step); // torch's step() opens a record_function: a user_annotation
        }
    }

    private void checkStepOpClosable() {
        if (stepOp == null || armed == null) {
            return;
        }
        long here = Thread.currentThread().getId();
        if (stepOp.thread() != here) {
            throw new IllegalStateException("step() on thread " + Thread.currentThread().getName() + ", but "
                    + stepOp.name() + " was opened on another thread: call step() and close() from the thread that drives"
                    + " the steps");
        }
        if (!armed.innermost(stepOp)) {
            throw new IllegalStateException("step() while an op opened inside " + stepOp.name()
                    + " is still open on this thread: " + stepOp.name() + " encloses its step's ops, close them before step()");
        }
    }

    private void closeStepOp() {
        OpScope op = stepOp;
        stepOp = null;
        if (op != null) {
            op.close();
        }
    }
}
