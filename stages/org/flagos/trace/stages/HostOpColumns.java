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

    /** Op indices ordered by start time, then External id: a stable order whatever the arrival order. */
    int[] byStart() {
        int[] order = new int[size];
        for (int i = 0; i < size; i++) {
            order[i] = i;
        }
        int[] scratch = new int[size];
        mergeSort(order, scratch, 0, size);
        return order;
    }

    private void mergeSort(int[] a, int[] tmp, int from, int to) {
        if (to - from < 2) {
            return;
        }
        int mid = (from + to) >>> 1;
        mergeSort(a, tmp, from, mid);
        mergeSort(a, tmp, mid, to);
        if (compareStart(a[mid - 1], a[mid]) <= 0) {
            return;
        }
        System.arraycopy(a, from, tmp, from, to - from);
        for (int i = from, l = from, r = mid; i < to; i++) {
            a[i] = r >= to || (l < mid && compareStart(tmp[l], tmp[r]) <= 0) ? tmp[l++] : tmp[r++];
        }
    }

    private int compareStart(int x, int y) {
        int c = Long.compare(start[x], start[y]);
        return c != 0 ? c : Long.compare(externalId[x], externalId[y]);
    }

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
