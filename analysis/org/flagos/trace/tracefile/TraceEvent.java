package org.flagos.trace.tracefile;

import com.fasterxml.jackson.core.JsonToken;

/**
 * One event of a trace as the reader read it, under one set of rules for every command: its fields
 * typed and bounded, and (for a reader that copies events, {@code merge}) its JSON tokens as read.
 * Reused from event to event: a visitor keeps what it needs before it returns.
 *
 * <p>The rules: {@code ph}, {@code cat} and {@code name} are strings or absent (anything else reads
 * as absent). A pid or tid is an integer within 64 bits (signed) or a string; anything else (an
 * object, a fraction, an integer past 64 bits) is no pid: {@link #pid} null and {@link #pidNumber}
 * {@link #NONE}. An id ({@code id}, {@code args["External id"]}, {@code args.correlation}, ...) is an
 * integer, or a string holding one, within 64 bits, unsigned ones past 2^63 (flagtrace's correlation
 * ids) as their low 64 bits; else {@link #NONE}. A {@code ts} or {@code dur} that is a number past
 * {@link TraceLimits#MAX_TIME_NS} refuses the file; one that is not a number, or a negative
 * {@code dur}, makes the event {@link #unusable()}: every reader leaves it out and counts it.
 */
public final class TraceEvent {
    /** No value: absent, or not one the rules take. */
    public static final long NONE = Long.MIN_VALUE;
    /** The {@code args} fields of an event's External id: torch's, and torch 1.8-1.9's ({@link #externalId}). */
    public static final String EXTERNAL_ID = "External id";
    public static final String EXTERNAL_ID_2021 = "external id";
    /** The {@code args} field of an event's correlation id ({@link #correlation}). */
    public static final String CORRELATION = "correlation";

    String ph;
    String cat;
    String name;
    String pid;
    String tid;
    String processGroup;
    long pidNumber;
    long tidNumber;
    long tsNs;
    long durNs;
    boolean unusable;
    long id;
    long externalId;
    long correlation;
    long device;
    long deviceType;
    long stream;
    long bytes;
    long memoryBytes;
    long totalAllocated;
    long totalReserved;
    long fromDevice;
    long toDevice;
    long fromContext;
    long toContext;
    long value;
    long inElems;
    long outElems;
    long groupSize;
    String dtype;
    int line;
    final EventTokens tokens = new EventTokens();
    byte[] rawBytes;
    int rawFrom;
    int rawTo;

    void reset() {
        ph = cat = name = pid = tid = processGroup = null;
        pidNumber = tidNumber = tsNs = durNs = id = NONE;
        externalId = correlation = device = deviceType = stream = bytes = memoryBytes = NONE;
        totalAllocated = totalReserved = fromDevice = toDevice = fromContext = toContext = value = NONE;
        inElems = outElems = groupSize = NONE;
        dtype = null;
        unusable = false;
        tokens.size = 0;
        rawBytes = null;
    }

    /** {@code ph}, or null. */
    public String ph() {
        return ph;
    }

    /** {@code cat}, or null. */
    public String cat() {
        return cat;
    }

    /** {@code name}, or null. */
    public String name() {
        return name;
    }

    /** The pid as its text (an integer's decimal digits, or the string), or null when it has none the rules take. */
    public String pid() {
        return pid;
    }

    /** The tid as {@link #pid} says it. */
    public String tid() {
        return tid;
    }

    /**
     * {@code args["Process Group Name"]} (torch 2.2 and later, on collectives' kernels and ops: the process group's
     * name, the same on every rank of the group), or null when absent or not a string.
     */
    public String processGroup() {
        return processGroup;
    }

    /** The pid as a number (an integer, or a string holding one), or {@link #NONE}. */
    public long pidNumber() {
        return pidNumber;
    }

    /** The tid as a number, or {@link #NONE}. */
    public long tidNumber() {
        return tidNumber;
    }

    /** {@code ts} in nanoseconds, or {@link #NONE} when absent or unusable. */
    public long tsNs() {
        return tsNs;
    }

    /** {@code dur} in nanoseconds (0 or more), or {@link #NONE} when absent or unusable. */
    public long durNs() {
        return durNs;
    }

    /** Whether a {@code ts} or {@code dur} it has is not a usable time (not a number; a negative duration). */
    public boolean unusable() {
        return unusable;
    }

    /** {@code id} (flows, async events), or {@link #NONE}. */
    public long id() {
        return id;
    }

    /** {@code args["External id"]} (2021: {@code external id}), or {@link #NONE}. */
    public long externalId() {
        return externalId;
    }

    /** {@code args.correlation}, or {@link #NONE}. */
    public long correlation() {
        return correlation;
    }

    /** {@code args.device}, {@code inDevice} (a peer copy's) or {@code Device Id}, or {@link #NONE}. */
    public long device() {
        return device;
    }

    /** {@code args["Device Type"]} ({@code [memory]}'s: 0 is the CPU), or {@link #NONE}. */
    public long deviceType() {
        return deviceType;
    }

    /** {@code args.stream}, or {@link #NONE}. */
    public long stream() {
        return stream;
    }

    /** {@code args.bytes} (a copy's or a set's), or {@link #NONE}. */
    public long bytes() {
        return bytes;
    }

    /** {@code args.Bytes} ({@code [memory]}'s), or {@link #NONE}. */
    public long memoryBytes() {
        return memoryBytes;
    }

    /** {@code args["Total Allocated"]}, or {@link #NONE}. */
    public long totalAllocated() {
        return totalAllocated;
    }

    /** {@code args["Total Reserved"]}, or {@link #NONE}. */
    public long totalReserved() {
        return totalReserved;
    }

    /** A peer copy's {@code args.fromDevice}, or {@link #NONE}. */
    public long fromDevice() {
        return fromDevice;
    }

    /** A peer copy's {@code args.toDevice}, or {@link #NONE}. */
    public long toDevice() {
        return toDevice;
    }

    /** A peer copy's {@code args.fromContext}, or {@link #NONE}. */
    public long fromContext() {
        return fromContext;
    }

    /** A peer copy's {@code args.toContext}, or {@link #NONE}. */
    public long toContext() {
        return toContext;
    }

    /** {@code args.value} (a memset's byte), or {@link #NONE}. */
    public long value() {
        return value;
    }

    /** A collective's {@code args["In msg nelems"]} (torch's, on its NCCL kernel and op), or {@link #NONE}. */
    public long inElems() {
        return inElems;
    }

    /** A collective's {@code args["Out msg nelems"]}, or {@link #NONE}. */
    public long outElems() {
        return outElems;
    }

    /** A collective's {@code args["Group size"]}, or {@link #NONE}. */
    public long groupSize() {
        return groupSize;
    }

    /** A collective's {@code args.dtype} (torch's name: {@code Float}, {@code BFloat16}, ...), or null. */
    public String dtype() {
        return dtype;
    }

    /** The line of the file the event starts on. */
    public int line() {
        return line;
    }

    /** The event's tokens as read, when the reader was asked to keep them; else empty. */
    public EventTokens tokens() {
        return tokens;
    }

    /**
     * The bytes holding the event as read (UTF-8, from {@link #rawFrom} to {@link #rawTo}: its object, white space
     * and escapes as in the file), when the reader was asked for them; else null. Valid until the visitor returns.
     */
    public byte[] rawBytes() {
        return rawBytes;
    }

    /** Where the event's bytes start in {@link #rawBytes}. */
    public int rawFrom() {
        return rawFrom;
    }

    /** Where the event's bytes end in {@link #rawBytes} (exclusive). */
    public int rawTo() {
        return rawTo;
    }

    /** Whether its category is {@code c}. */
    public boolean isCategory(String c) {
        return c.equals(cat);
    }

    static boolean isTime(JsonToken t) {
        return t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT;
    }

    /**
     * A whole number written as a string, as every reader reads an id or a pid so written: at most 20 characters, a
     * signed number within 64 bits ({@link Long#parseLong}); {@link #NONE} for any other text. {@code merge} renumbers
     * an id so written by this rule too, so that what a reader pairs before a merge it pairs after.
     */
    public static long wholeNumber(String s) {
        if (s.isEmpty() || s.length() > 20) {
            return NONE;
        }
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return NONE;
        }
    }
}
