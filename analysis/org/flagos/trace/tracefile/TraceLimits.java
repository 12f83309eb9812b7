package org.flagos.trace.tracefile;

/**
 * Every bound the trace reader puts on what a file says: a number past one, or a count past one,
 * refuses the file in one line rather than wrapping, overflowing or filling the heap.
 */
public final class TraceLimits {
    /** JSON nesting: no trace nests deeper (an event's args are four levels down), a hostile file may. */
    public static final int MAX_DEPTH = 64;
    /** One event's JSON, in bytes (after gunzip): torch's largest (long stacks, shapes of big concats) are kilobytes. */
    public static final long MAX_EVENT_BYTES = 4L << 20;
    /** One JSON string, in characters: no longer than an event may be. */
    public static final int MAX_STRING_CHARS = (int) MAX_EVENT_BYTES;
    /** One JSON number's text, in characters: a time or an id has at most about 25. */
    public static final int MAX_NUMBER_CHARS = 100;
    /**
     * A time ({@code ts}, {@code dur}, {@code baseTimeNanoseconds}, a clock anchor's readings) in
     * nanoseconds, either sign: 2^62 ns is 146 years, so a base plus a time plus an offset stays in a long.
     */
    public static final long MAX_TIME_NS = 1L << 62;
    /** A clock anchor's bound, and the bound an alignment may reach: an hour. */
    public static final long MAX_CLOCK_BOUND_NS = 3_600_000_000_000L;
    /** A rank, a world size. */
    public static final long MAX_RANK = Integer.MAX_VALUE;
    /** The pids flagtrace merge gives each input: its host process and up to 998 devices. */
    public static final int PID_STRIDE = 1_000;
    /** Inputs a merge block may list (ranks of one job). */
    public static final int MAX_MERGE_INPUTS = 1 << 16;
    /** Pids one input of a merge block may list. */
    public static final int MAX_PIDS_PER_INPUT = PID_STRIDE - 1;
    /** Device names kept from {@code deviceProperties}. */
    public static final int MAX_DEVICES = 1024;
    /** Strings kept from the {@code flagtrace} block's arrays ({@code notes}). */
    public static final int MAX_NOTES = 1000;
    /** Counters kept from the {@code flagtrace} block. */
    public static final int MAX_COUNTERS = 10_000;
    /** A host name longer than this is not a host's (a host name has at most 255 bytes). */
    public static final int MAX_HOST_CHARS = 1024;
    /**
     * One packet of a {@code .pftrace}, in bytes (after gunzip): a packet is one slice's begin or end with what it
     * interns, so it is held to one event's bound ({@link #MAX_EVENT_BYTES}).
     */
    public static final long MAX_PACKET_BYTES = MAX_EVENT_BYTES;
    /** Tracks (host threads, devices, device streams) of a {@code .pftrace}. */
    public static final int MAX_TRACKS = 1 << 16;
    /** Slices of a {@code .pftrace} begun and not yet ended, over all its tracks. */
    public static final int MAX_OPEN_SLICES = 1 << 18;

    private TraceLimits() {
    }
}
