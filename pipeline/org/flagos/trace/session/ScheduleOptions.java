package org.flagos.trace.session;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.flagos.trace.model.DeviceProperties;

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
 */
public record ScheduleOptions(java.nio.file.Path directory, StepSchedule schedule, TraceReadyHandler onTraceReady,
                              boolean gzip, List<DeviceProperties> devices, Map<String, String> metadata) {
    public ScheduleOptions {
        Objects.requireNonNull(directory, "directory");
        Objects.requireNonNull(schedule, "schedule");
        Objects.requireNonNull(onTraceReady, "onTraceReady");
        devices = List.copyOf(devices);
        metadata = Map.copyOf(metadata);
    }

    /** Cycles scheduled by {@code schedule}, each written into {@code directory} under torch's TensorBoard name. */
    public static ScheduleOptions in(java.nio.file.Path directory, StepSchedule schedule) {
        return new ScheduleOptions(directory, schedule, TraceReadyHandler.tensorboard(directory), false, List.of(), Map.of());
    }

    /** Hands each completed cycle to {@code handler} instead. */
    public ScheduleOptions onTraceReady(TraceReadyHandler handler) {
        return new ScheduleOptions(directory, schedule, handler, gzip, devices, metadata);
    }

    /** Writes the traces gzip-compressed. */
    public ScheduleOptions gzipped() {
        return new ScheduleOptions(directory, schedule, onTraceReady, true, devices, metadata);
    }

    /** Adds {@code metadata} as top-level keys of every cycle's trace. */
    public ScheduleOptions withMetadata(Map<String, String> metadata) {
        return new ScheduleOptions(directory, schedule, onTraceReady, gzip, devices, metadata);
    }

    /** The file name ending of the traces. */
    String suffix() {
        return gzip ? ".pt.trace.json.gz" : ".pt.trace.json";
    }
}
