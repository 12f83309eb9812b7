package org.flagos.trace.session;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.flagos.trace.model.ProcessIdentity;

/**
 * What a {@link ScheduledSession} does: its step schedule, where each cycle's trace is written while
 * it is recorded, who takes it when complete, and what every cycle's session does (a template of
 * {@link SessionOptions}: each cycle's options are the template with that cycle's trace and dump).
 *
 * @param directory    where each cycle's trace is written (created if missing), under a provisional
 *                     hidden name until the handler moves it
 * @param schedule     which steps are skipped, warm up and are recorded
 * @param onTraceReady takes each completed cycle; {@link TraceReadyHandler#tensorboard(java.nio.file.Path)}
 *                     of {@code directory} unless set
 * @param gzip         whether traces are written gzip-compressed ({@code .pt.trace.json.gz}, torch's {@code use_gzip})
 * @param bufferDumps  whether each cycle also saves its raw buffers with their sidecars for replay
 *                     ({@link #withBufferDumps})
 * @param session      every cycle's session options (devices, metadata, stacks, GPU annotations, identity),
 *                     without a trace, a dump or a journal: those are each cycle's own
 */
public record ScheduleOptions(Path directory, StepSchedule schedule, TraceReadyHandler onTraceReady, boolean gzip,
                              boolean bufferDumps, SessionOptions session) {
    public ScheduleOptions {
        Objects.requireNonNull(directory, "directory");
        Objects.requireNonNull(schedule, "schedule");
        Objects.requireNonNull(onTraceReady, "onTraceReady");
        Objects.requireNonNull(session, "session");
        if (session.trace() != null || session.dumpBuffers() != null || session.journal() != null) {
            throw new IllegalArgumentException("the session template of a schedule names no trace, dump or journal: each cycle has its own");
        }
    }

    /** Cycles scheduled by {@code schedule}, each written into {@code directory} under torch's TensorBoard name. */
    public static ScheduleOptions in(Path directory, StepSchedule schedule) {
        return new ScheduleOptions(directory, schedule, TraceReadyHandler.tensorboard(directory), false, false,
                SessionOptions.defaults());
    }

    /** Hands each completed cycle to {@code handler} instead. */
    public ScheduleOptions onTraceReady(TraceReadyHandler handler) {
        return new ScheduleOptions(directory, schedule, handler, gzip, bufferDumps, session);
    }

    /** Writes the traces gzip-compressed. */
    public ScheduleOptions gzipped() {
        return new ScheduleOptions(directory, schedule, onTraceReady, true, bufferDumps, session);
    }

    /**
     * Each cycle also saves its raw activity buffers for replay, as a session's
     * {@link SessionOptions#dumpBuffers} does: a {@code .fltrbuf} capture with its sidecars (ops,
     * kernel names, device properties, clock, who captured). They take the trace's base name when the
     * handler moves the trace ({@code W.EPOCH.pt.trace.json} beside {@code W.EPOCH.fltrbuf},
     * {@code W.EPOCH.ops.jsonl}, ...) and are deleted with a trace the handler leaves; each replays
     * ({@code flagtrace replay W.EPOCH.fltrbuf}) to its cycle's trace. Buffers the tracer delivers
     * during warmup are in the dump too, and fall outside the window its ops file gives, as they do live.
     */
    public ScheduleOptions withBufferDumps() {
        return new ScheduleOptions(directory, schedule, onTraceReady, gzip, true, session);
    }

    /** Every cycle's session options changed by {@code change} (any {@link SessionOptions} wither but a trace, dump or journal). */
    public ScheduleOptions withSession(UnaryOperator<SessionOptions> change) {
        return new ScheduleOptions(directory, schedule, onTraceReady, gzip, bufferDumps, change.apply(session));
    }

    /** Adds {@code metadata} as top-level keys of every cycle's trace ({@link SessionOptions#withMetadata}). */
    public ScheduleOptions withMetadata(Map<String, String> metadata) {
        return withSession(s -> s.withMetadata(metadata));
    }

    /** Each op records its innermost {@code depth} Java frames, in every cycle ({@link SessionOptions#withStack}). */
    public ScheduleOptions withStack(int depth) {
        return withSession(s -> s.withStack(depth));
    }

    /** No cycle draws GPU annotation spans ({@link SessionOptions#withoutGpuAnnotations}). */
    public ScheduleOptions withoutGpuAnnotations() {
        return withSession(SessionOptions::withoutGpuAnnotations);
    }

    /** Says who captures, in place of what the environment says, in every cycle's trace ({@link SessionOptions#withIdentity}). */
    public ScheduleOptions withIdentity(ProcessIdentity who) {
        return withSession(s -> s.withIdentity(who));
    }

    /** This process is rank {@code rank} of {@code worldSize} ({@link SessionOptions#withRank}). */
    public ScheduleOptions withRank(int rank, int worldSize) {
        return withSession(s -> s.withRank(rank, worldSize));
    }

    /** One cycle's session options: its trace at {@code trace}, its dump at {@code dump} (null: none), everything else as the template says. */
    SessionOptions cycle(Path trace, Path dump) {
        return session.toBuilder().trace(trace).dumpBuffers(dump).build();
    }

    /** The file name ending of the traces. */
    String suffix() {
        return gzip ? ".pt.trace.json.gz" : ".pt.trace.json";
    }
}
