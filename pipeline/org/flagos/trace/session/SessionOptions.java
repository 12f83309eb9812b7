package org.flagos.trace.session;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.flagos.trace.journal.JournalOptions;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.OpStack;
import org.flagos.trace.model.ProcessIdentity;

/**
 * Where a session writes and what it adds.
 *
 * @param trace       the trace file (written whole at close, {@code .gz} compressed; Perfetto's protobuf
 *                    trace when it ends in {@code .pftrace}, torch-compatible JSON otherwise)
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
 */
public record SessionOptions(Path trace, Path dumpBuffers, List<DeviceProperties> devices, Map<String, String> metadata,
                             JournalOptions journal, int stackDepth, boolean gpuAnnotations, ProcessIdentity identity) {
    public SessionOptions {
        if (stackDepth < 0 || stackDepth > OpStack.MAX_FRAMES) {
            throw new IllegalArgumentException("stackDepth must be 0 (no stacks) to " + OpStack.MAX_FRAMES + ", not " + stackDepth);
        }
    }

    public SessionOptions(Path trace, Path dumpBuffers, List<DeviceProperties> devices, Map<String, String> metadata,
                          JournalOptions journal, int stackDepth) {
        this(trace, dumpBuffers, devices, metadata, journal, stackDepth, true, null);
    }

    public SessionOptions(Path trace, Path dumpBuffers, List<DeviceProperties> devices, Map<String, String> metadata,
                          JournalOptions journal) {
        this(trace, dumpBuffers, devices, metadata, journal, 0);
    }

    public SessionOptions(Path trace, Path dumpBuffers, List<DeviceProperties> devices, Map<String, String> metadata) {
        this(trace, dumpBuffers, devices, metadata, null);
    }

    /** A session writing {@code trace} and nothing else. */
    public static SessionOptions to(Path trace) {
        return new SessionOptions(trace, null, List.of(), Map.of());
    }

    public SessionOptions withDumpBuffers(Path dump) {
        return new SessionOptions(trace, dump, devices, metadata, journal, stackDepth, gpuAnnotations, identity);
    }

    /** Journals the session into the new or empty directory {@code dir}, keeping everything. */
    public SessionOptions withJournal(Path dir) {
        return withJournal(JournalOptions.to(dir));
    }

    /** Journals the session as {@code options} say (a flight recorder when they bound retention). */
    public SessionOptions withJournal(JournalOptions options) {
        return new SessionOptions(trace, dumpBuffers, devices, metadata, options, stackDepth, gpuAnnotations, identity);
    }

    /**
     * Records the Java stack that opens each op, its innermost {@code depth} frames (at most
     * {@link OpStack#MAX_FRAMES}), as torch's {@code with_stack=True} records the Python stack: the
     * trace's {@code cpu_op} carries it as {@code "Call stack"}. Each op then walks its stack when it
     * opens (docs/benchmarks.md gives the cost).
     */
    public SessionOptions withStack(int depth) {
        return new SessionOptions(trace, dumpBuffers, devices, metadata, journal, depth, gpuAnnotations, identity);
    }

    /** Says who captures, in place of what the environment says. */
    public SessionOptions withIdentity(ProcessIdentity who) {
        return new SessionOptions(trace, dumpBuffers, devices, metadata, journal, stackDepth, gpuAnnotations, who);
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
        return new SessionOptions(trace, dumpBuffers, devices, metadata, journal, stackDepth, false, identity);
    }
}
