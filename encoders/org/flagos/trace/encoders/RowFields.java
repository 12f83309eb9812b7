package org.flagos.trace.encoders;

import com.fasterxml.jackson.core.io.NumberOutput;

/**
 * The text every event on a row repeats between its name and its time, {@code ,"pid":P,"tid":T,"ts":},
 * kept for the last rows written in a small direct-mapped cache (a capture draws on a few dozen rows:
 * the host's threads, each device's streams). An event then copies one run of bytes where it wrote
 * three constants and two numbers (five copies, two cache look-ups). A miss writes the slot again in
 * place: nothing is allocated.
 */
final class RowFields {
    private static final int BITS = 6;
    /** {@code ,"pid":} (7), a long's 20 characters at most, {@code ,"tid":} (7), 20 more, {@code ,"ts":} (6). */
    static final int WIDTH = 64;
    private static final byte[] PID_ = EventBytes.ascii(",\"pid\":");
    private static final byte[] TID_ = EventBytes.ascii(",\"tid\":");
    private static final byte[] TS_ = EventBytes.ascii(",\"ts\":");

    private final long[] pid = new long[1 << BITS];
    private final long[] tid = new long[1 << BITS];
    private final byte[] length = new byte[1 << BITS]; // 0: empty
    private final byte[] text = new byte[WIDTH << BITS];

    /** Copies the row's text into {@code into} at {@code at} (at least {@link #WIDTH} bytes free); returns the end. */
    int copy(long p, long t, byte[] into, int at) {
        int slot = (int) ((p * 0x9E3779B97F4A7C15L + t * 0xC2B2AE3D27D4EB4FL) >>> (64 - BITS));
        int from = slot * WIDTH;
        int n = length[slot];
        if (n == 0 || pid[slot] != p || tid[slot] != t) {
            n = fill(from, p, t);
            pid[slot] = p;
            tid[slot] = t;
            length[slot] = (byte) n;
        }
        System.arraycopy(text, from, into, at, n);
        return at + n;
    }

    private int fill(int from, long p, long t) {
        int to = append(PID_, from);
        to = NumberOutput.outputLong(p, text, to);
        to = append(TID_, to);
        to = NumberOutput.outputLong(t, text, to);
        to = append(TS_, to);
        return to - from;
    }

    private int append(byte[] fragment, int at) {
        System.arraycopy(fragment, 0, text, at, fragment.length);
        return at + fragment.length;
    }
}
