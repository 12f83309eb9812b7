package org.flagos.trace.stages;

import java.util.Arrays;

/** The host ops of a capture, column by column, so collecting them allocates only on growth. */
final class HostOpColumns {
    int size;
    int[] nameId = new int[1024];
    long[] externalId = new long[1024];
    long[] thread = new long[1024];
    long[] start = new long[1024];
    long[] end = new long[1024];

    void add(int name, long external, long threadId, long startNs, long endNs) {
        if (size == nameId.length) {
            int n = size * 2;
            nameId = Arrays.copyOf(nameId, n);
            externalId = Arrays.copyOf(externalId, n);
            thread = Arrays.copyOf(thread, n);
            start = Arrays.copyOf(start, n);
            end = Arrays.copyOf(end, n);
        }
        nameId[size] = name;
        externalId[size] = external;
        thread[size] = threadId;
        start[size] = startNs;
        end[size] = endNs;
        size++;
    }
}
