package org.flagos.trace.session;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.flagos.trace.capture.TraceFormat;
import org.flagos.trace.journal.JournalOptions;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.OpStack;
import org.flagos.trace.model.ProcessIdentity;

/**
 * Where a session writes and what it adds. Each option has its field and default in {@link Builder}
 * and its check in the constructor; {@link #to}, the withers and {@link ScheduleOptions}' template
 * all go through them.
 *
 * @param trace       the trace file (written whole at close, {@code .gz} compressed)
 * @param dumpBuffers when non-null, every raw vendor buffer is also saved there as a
 *                    {@code .fltrbuf} capture (with its kernel name table beside it) for replay
 * @param devices     device properties overriding what the tracer reports; empty: the tracer's
 * @param metadata    extra top-level trace keys
 * @param journal     when non-null, buffers, names, ops and the session's start and stop are also
 *                    journaled there as they arrive (a Chronicle Queue; with a retention bound, a
 *                    flight recorder), for {@code flagtrace replay DIR} at any time, even after a kill
 * @param stackDepth  frames of the Java stack each op records when it opens (torch's {@code with_stack});
 *                    0: none
 * @param gpuAnnotations whether each op's span on each stream it ran work on is drawn, as torch's
 *                    {@code gpu_user_annotation} (on by default; a dump or journal replays them either way)
 * @param identity    who captures (rank, world size, local rank, host, pid), written as torch's
 *                    {@code distributedInfo} when a rank is known; null: read from the environment
 *                    ({@code RANK}, {@code WORLD_SIZE}, {@code LOCAL_RANK}, {@code LOCAL_WORLD_SIZE}
 *                    as torchrun sets them, or Open MPI's, PMI's and Slurm's) when the session starts
 * @param format      the trace's format; null: as the trace's name says ({@link #traceFormat()})
 */
public record SessionOptions(Path trace, Path dumpBuffers, List<DeviceProperties> devices, Map<String, String> metadata,
                             JournalOptions journal, int stackDepth, boolean gpuAnnotations, ProcessIdentity identity,
                             TraceFormat format) {
    /** The one check of every option, whichever way the options were made. */
    public SessionOptions {
        devices = List.copyOf(Objects.requireNonNull(devices, "devices"));
        metadata = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(metadata, "metadata"))); // in the order given
        if (stackDepth < 0 || stackDepth > OpStack.MAX_FRAMES) {
            throw new IllegalArgumentException("stackDepth must be 0 (no stacks) to " + OpStack.MAX_FRAMES + ", not " + stackDepth);
        }
    }

    /** A session writing {@code trace} and nothing else. */
    public static SessionOptions to(Path trace) {
        return builder().trace(trace).build();
    }

    /** Options as {@link #builder()} starts them: each option at its default, no trace (a template). */
    public static SessionOptions defaults() {
        return builder().build();
    }

    /** Every option at its default: no trace yet, no dump, the tracer's devices, no metadata, no journal, no stacks, GPU annotations, the environment's identity. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these options, to change some. */
    public Builder toBuilder() {
        return new Builder().trace(trace).dumpBuffers(dumpBuffers).devices(devices).metadata(metadata).journal(journal)
                .stackDepth(stackDepth).gpuAnnotations(gpuAnnotations).identity(identity).format(format);
    }

    /**
     * The format the session writes: {@link #format} when set, else the one its trace's name picks
     * ({@link TraceFormat#of(Path)}: Perfetto's protobuf for {@code .pftrace}, the events table for
     * {@code .parquet}, torch-compatible JSON otherwise). A template's cycles each take their own name's.
     */
    public TraceFormat traceFormat() {
        return format != null ? format : TraceFormat.of(trace);
    }

    /** These options writing {@code format} whatever the trace's name. */
    public SessionOptions withFormat(TraceFormat format) {
        return toBuilder().format(format).build();
    }

    /** These options writing {@code trace} (a template's cycle, say). */
    public SessionOptions withTrace(Path trace) {
        return toBuilder().trace(trace).build();
    }

    public SessionOptions withDumpBuffers(Path dump) {
        return toBuilder().dumpBuffers(dump).build();
    }

    /** Device properties overriding what the tracer reports. */
    public SessionOptions withDevices(List<DeviceProperties> devices) {
        return toBuilder().devices(devices).build();
    }

    /** Adds {@code metadata} as top-level keys of the trace. */
    public SessionOptions withMetadata(Map<String, String> metadata) {
        return toBuilder().metadata(metadata).build();
    }

    /** Journals the session into the new or empty directory {@code dir}, keeping everything. */
    public SessionOptions withJournal(Path dir) {
        return withJournal(JournalOptions.to(dir));
    }

    /** Journals the session as {@code options} say (a flight recorder when they bound retention). */
    public SessionOptions withJournal(JournalOptions options) {
        return toBuilder().journal(options).build();
    }

    /**
     * Records the Java stack that opens each op, its innermost {@code depth} frames (at most
     * {@link OpStack#MAX_FRAMES}), as torch's {@code with_stack=True} records the Python stack: the
     * trace's {@code cpu_op} carries it as {@code "Call stack"}. Each op then walks its stack when it
     * opens (docs/benchmarks.md gives the cost).
     */
    public SessionOptions withStack(int depth) {
        return toBuilder().stackDepth(depth).build();
    }

    /** Says who captures, in place of what the environment says. */
    public SessionOptions withIdentity(ProcessIdentity who) {
        return toBuilder().identity(who).build();
    }

    /**
     * This process is rank {@code rank} of {@code worldSize} (a program that knows better than its
     * environment); host, pid and local rank still come from the environment.
     */
    public SessionOptions withRank(int rank, int worldSize) {
        return withIdentity(ProcessIdentity.ofThisProcess(System.getenv()).withRank(rank, worldSize));
    }

    /** Who the session says captured: {@link #identity} when set, else this process as its environment says. */
    ProcessIdentity resolvedIdentity() {
        return identity != null ? identity : ProcessIdentity.ofThisProcess(System.getenv());
    }

    /**
     * Draws no GPU annotation spans: torch's {@code gpu_user_annotation}, each op's span on each stream
     * it ran device work on, drawn by default.
     */
    public SessionOptions withoutGpuAnnotations() {
        return toBuilder().gpuAnnotations(false).build();
    }

    /**
     * Session options made one at a time: each option's field and default here, its check in
     * {@link SessionOptions}'s constructor when {@link #build()} makes them. A new option is a
     * component of the record, a field and a setter here, and a line of {@link #toBuilder()}.
     */
    public static final class Builder {
        private Path trace;
        private Path dumpBuffers;
        private List<DeviceProperties> devices = List.of();
        private Map<String, String> metadata = Map.of();
        private JournalOptions journal;
        private int stackDepth;
        private boolean gpuAnnotations = true;
        private ProcessIdentity identity;
        private TraceFormat format;

        private Builder() {
        }

        public Builder trace(Path trace) {
            this.trace = trace;
            return this;
        }

        public Builder dumpBuffers(Path dumpBuffers) {
            this.dumpBuffers = dumpBuffers;
            return this;
        }

        public Builder devices(List<DeviceProperties> devices) {
            this.devices = devices;
            return this;
        }

        public Builder metadata(Map<String, String> metadata) {
            this.metadata = metadata;
            return this;
        }

        public Builder journal(JournalOptions journal) {
            this.journal = journal;
            return this;
        }

        public Builder stackDepth(int stackDepth) {
            this.stackDepth = stackDepth;
            return this;
        }

        public Builder gpuAnnotations(boolean gpuAnnotations) {
            this.gpuAnnotations = gpuAnnotations;
            return this;
        }

        public Builder identity(ProcessIdentity identity) {
            this.identity = identity;
            return this;
        }

        /** The trace's format; null (the default): as the trace's name says. */
        public Builder format(TraceFormat format) {
            this.format = format;
            return this;
        }

        /** The options, checked. */
        public SessionOptions build() {
            return new SessionOptions(trace, dumpBuffers, devices, metadata, journal, stackDepth, gpuAnnotations, identity, format);
        }
    }
}
