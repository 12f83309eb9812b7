package org.flagos.trace.stages;

import java.util.Arrays;

/**
 * Per holder (an op slot, an early entry, a sibling awaiting its parent), the span of device time it
 * has on each stream: the earliest start and latest end of the device records folded into it. A
 * holder keeps at most {@link #PER_HOLDER} streams, so what is held stays a fixed size per op; a
 * record or a nested span on one stream more does not fit and the caller counts it. Flat arrays, no
 * object per span: holders are numbered slots, as the ledger's and the fold's are. Nothing here knows
 * ops: a range (an NVTX one) can hold its spans the same way.
 */
final class StreamSpans {
    /** Streams kept per holder: the bundled H200 captures' ops use at most 2 (h200-kinds' copy on a side stream). */
    static final int PER_HOLDER = 4;

    private long[] key;
    private long[] start;
    private long[] end;
    private byte[] count;

    StreamSpans(int holders) {
        key = new long[holders * PER_HOLDER];
        start = new long[holders * PER_HOLDER];
        end = new long[holders * PER_HOLDER];
        count = new byte[holders];
    }

    /** The stream's key: its device and stream, as a device slice's row. */
    static long streamKey(int device, int stream) {
        return ((long) device << 32) | (stream & 0xFFFF_FFFFL);
    }

    static int device(long key) {
        return (int) (key >> 32);
    }

    static int stream(long key) {
        return (int) key;
    }

    /** Room for {@code holders} holders, the spans kept. */
    void ensure(int holders) {
        if (holders > count.length) {
            int n = Math.max(holders, count.length * 2);
            key = Arrays.copyOf(key, n * PER_HOLDER);
            start = Arrays.copyOf(start, n * PER_HOLDER);
            end = Arrays.copyOf(end, n * PER_HOLDER);
            count = Arrays.copyOf(count, n);
        }
    }

    void clear(int holder) {
        count[holder] = 0;
    }

    int count(int holder) {
        return count[holder];
    }

    long key(int holder, int i) {
        return key[holder * PER_HOLDER + i];
    }

    long start(int holder, int i) {
        return start[holder * PER_HOLDER + i];
    }

    long end(int holder, int i) {
        return end[holder * PER_HOLDER + i];
    }

    /** Widens the holder's span on stream {@code k} to [s, e]; false when it has no room for one more stream. */
    boolean add(int holder, long k, long s, long e) {
        int base = holder * PER_HOLDER;
        int n = count[holder];
        for (int i = base; i < base + n; i++) {
            if (key[i] == k) {
                start[i] = Math.min(start[i], s);
                end[i] = Math.max(end[i], e);
                return true;
            }
        }
        if (n == PER_HOLDER) {
            return false;
        }
        key[base + n] = k;
        start[base + n] = s;
        end[base + n] = e;
        count[holder] = (byte) (n + 1);
        return true;
    }

    /** Widens {@code to}'s spans by {@code from}'s (of {@code source}); returns the spans that found no room. */
    int addAll(int to, StreamSpans source, int from) {
        int lost = 0;
        int base = from * PER_HOLDER;
        for (int i = base; i < base + source.count[from]; i++) {
            if (!add(to, source.key[i], source.start[i], source.end[i])) {
                lost++;
            }
        }
        return lost;
    }

    /** Makes {@code to}'s spans {@code from}'s (of {@code source}). */
    void copy(int to, StreamSpans source, int from) {
        System.arraycopy(source.key, from * PER_HOLDER, key, to * PER_HOLDER, PER_HOLDER);
        System.arraycopy(source.start, from * PER_HOLDER, start, to * PER_HOLDER, PER_HOLDER);
        System.arraycopy(source.end, from * PER_HOLDER, end, to * PER_HOLDER, PER_HOLDER);
        count[to] = source.count[from];
    }
}
