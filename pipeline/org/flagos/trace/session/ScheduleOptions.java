package org.flagos.trace.session;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.OpStack;
import org.flagos.trace.model.ProcessIdentity;

/**
 * What a {@link ScheduledSession} does: its step schedule, where each cycle's trace is written while
 * it is recorded, and who takes it when complete.
 *
 * @param directory    where each cycle's trace is written (created if missing), under a provisional
 *                     hidden name until the handler moves it
 * @param schedule     which steps are skipped, warm up and are recorded
 * @param onTraceReady takes each completed cycle; {@link TraceReadyHandler#tensorboard(java.nio.file.Path)}
 *                     of {@code directory} unless set
 * @param gzip         whether traces are written gzip-compressed ({@code .pt.trace.json.gz}, torch's {@code use_gzip})
 * @param devices      device properties overriding what the tracer reports; empty: the tracer's
 * @param metadata     extra top-level keys of every cycle's trace
 * @param stackDepth   the Java stack frames each op records ({@link SessionOptions#withStack}); 0: none
 * @param gpuAnnotations whether each cycle draws GPU annotation spans ({@link SessionOptions#withoutGpuAnnotations})
 * @param identity     who captures ({@link SessionOptions#withIdentity}); null: as the environment says
 * @param bufferDumps  whether each cycle also saves its raw buffers with their sidecars for replay
 *                     ({@link #withBufferDumps})
 */
public record ScheduleOptions(java.nio.file.Path directory, StepSchedule schedule, TraceReadyHandler onTraceReady,
                              boolean gzip, List<DeviceProperties> devices, Map<String, String> metadata, int stackDepth,
                              boolean gpuAnnotations, ProcessIdentity identity, boolean bufferDumps) {
    public ScheduleOptions {
        Objects.requireNonNull(directory, "directory");
        Objects.requireNonNull(schedule, "schedule");
        Objects.requireNonNull(onTraceReady, "onTraceReady");
        devices = List.copyOf(devices);
        metadata = Map.copyOf(metadata);
        if (stackDepth < 0 || stackDepth > OpStack.MAX_FRAMES) {
            throw new IllegalArgumentException("stackDepth must be 0 (no stacks) to " + OpStack.MAX_FRAMES + ", not " + stackDepth);
        }
    }

    /** Options without buffer dumps. */
    public ScheduleOptions(java.nio.file.Path directory, StepSchedule schedule, TraceReadyHandler onTraceReady,
                           boolean gzip, List<DeviceProperties> devices, Map<String, String> metadata, int stackDepth,
                           boolean gpuAnnotations, ProcessIdentity identity) {
        this(directory, schedule, onTraceReady, gzip, devices, metadata, stackDepth, gpuAnnotations, identity, false);
    }

    /** Options without stacks, with GPU annotation spans, the identity the environment gives. */
    public ScheduleOptions(java.nio.file.Path directory, StepSchedule schedule, TraceReadyHandler onTraceReady,
                           boolean gzip, List<DeviceProperties> devices, Map<String, String> metadata) {
        this(directory, schedule, onTraceReady, gzip, devices, metadata, 0, true, null);
    }

    /** Cycles scheduled by {@code schedule}, each written into {@code directory} under torch's TensorBoard name. */
    public static ScheduleOptions in(java.nio.file.Path directory, StepSchedule schedule) {
        return new ScheduleOptions(directory, schedule, TraceReadyHandler.tensorboard(directory), false, List.of(), Map.of());
    }

    /** Hands each completed cycle to {@code handler} instead. */
    public ScheduleOptions onTraceReady(TraceReadyHandler handler) {
        return new ScheduleOptions(directory, schedule, handler, gzip, devices, metadata, stackDepth, gpuAnnotations, identity, bufferDumps);
    }

    /** Writes the traces gzip-compressed. */
    public ScheduleOptions gzipped() {
        return new ScheduleOptions(directory, schedule, onTraceReady, true, devices, metadata, stackDepth, gpuAnnotations, identity, bufferDumps);
    }

    /** Adds {@code metadata} as top-level keys of every cycle's trace. */
    public ScheduleOptions withMetadata(Map<String, String> metadata) {
        return new ScheduleOptions(directory, schedule, onTraceReady, gzip, devices, metadata, stackDepth, gpuAnnotations, identity, bufferDumps);
    }

    /** Each op records its innermost {@code depth} Java frames, in every cycle ({@link SessionOptions#withStack}). */
    public ScheduleOptions withStack(int depth) {
        return new ScheduleOptions(directory, schedule, onTraceReady, gzip, devices, metadata, depth, gpuAnnotations, identity, bufferDumps);
    }

    /** No cycle draws GPU annotation spans ({@link SessionOptions#withoutGpuAnnotations}). */
    public ScheduleOptions withoutGpuAnnotations() {
        return new ScheduleOptions(directory, schedule, onTraceReady, gzip, devices, metadata, stackDepth, false, identity, bufferDumps);
    }

    /** Says who captures, in place of what the environment says, in every cycle's trace. */
    public ScheduleOptions withIdentity(ProcessIdentity who) {
        return new ScheduleOptions(directory, schedule, onTraceReady, gzip, devices, metadata, stackDepth, gpuAnnotations, who, bufferDumps);
    }

    /** This process is rank {@code rank} of {@code worldSize} ({@link SessionOptions#withRank}). */
    public ScheduleOptions withRank(int rank, int worldSize) {
        return withIdentity(ProcessIdentity.ofThisProcess(System.getenv()).withRank(rank, worldSize));
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
        return new ScheduleOptions(directory, schedule, onTraceReady, gzip, devices, metadata, stackDepth, gpuAnnotations, identity, true);
    }

    /** One cycle's session options: its trace at {@code trace}, its dump at {@code dump} (null: none), everything else as these say. */
    SessionOptions cycle(java.nio.file.Path trace, java.nio.file.Path dump) {
        return new SessionOptions(trace, dump, devices, metadata, null, stackDepth, gpuAnnotations, identity);
    }

    /** The file name ending of the traces. */
    String suffix() {
        return gzip ? ".pt.trace.json.gz" : ".pt.trace.json";
    }
}
