package org.flagos.trace.stages;

import java.util.Arrays;

/** The host ops of a capture, column by column, so collecting them allocates only on growth. */
final class HostOpColumns {
    int size;
    int[] nameId = new int[1024];
    int[] threadNameId = new int[1024];
    long[] externalId = new long[1024];
    long[] thread = new long[1024];
    long[] start = new long[1024];
    long[] end = new long[1024];

    /** Op indices ordered by start time, then External id: a stable order whatever the arrival order. */
    int[] byStart() {
        return sortedIndices((x, y) -> {
            int c = Long.compare(start[x], start[y]);
            return c != 0 ? c : Long.compare(externalId[x], externalId[y]);
        });
    }

    /** Op indices by thread, then start, then longest first: parents before their children. */
    int[] byNesting() {
        return sortedIndices((x, y) -> {
            int c = Long.compare(thread[x], thread[y]);
            if (c == 0) {
                c = Long.compare(start[x], start[y]);
            }
            if (c == 0) {
                c = Long.compare(end[y], end[x]);
            }
            return c != 0 ? c : Long.compare(externalId[x], externalId[y]);
        });
    }

    /** Compares two op indices. */
    @FunctionalInterface
    private interface IndexOrder {
        int compare(int x, int y);
    }

    /** A stable merge sort of the indices 0..size-1, without boxing them. */
    private int[] sortedIndices(IndexOrder order) {
        int[] indices = new int[size];
        for (int i = 0; i < size; i++) {
            indices[i] = i;
        }
        mergeSort(indices, new int[size], 0, size, order);
        return indices;
    }

    private static void mergeSort(int[] a, int[] tmp, int from, int to, IndexOrder order) {
        if (to - from < 2) {
            return;
        }
        int mid = (from + to) >>> 1;
        mergeSort(a, tmp, from, mid, order);
        mergeSort(a, tmp, mid, to, order);
        if (order.compare(a[mid - 1], a[mid]) <= 0) {
            return; // already ordered: the common case, ops arrive nearly sorted
        }
        System.arraycopy(a, from, tmp, from, to - from);
        for (int i = from, l = from, r = mid; i < to; i++) {
            a[i] = r >= to || (l < mid && order.compare(tmp[l], tmp[r]) <= 0) ? tmp[l++] : tmp[r++];
        }
    }

    void add(int name, long external, long threadId, long startNs, long endNs, int threadName) {
        if (size == nameId.length) {
            int n = size * 2;
            nameId = Arrays.copyOf(nameId, n);
            threadNameId = Arrays.copyOf(threadNameId, n);
            externalId = Arrays.copyOf(externalId, n);
            thread = Arrays.copyOf(thread, n);
            start = Arrays.copyOf(start, n);
            end = Arrays.copyOf(end, n);
        }
        nameId[size] = name;
        threadNameId[size] = threadName;
        externalId[size] = external;
        thread[size] = threadId;
        start[size] = startNs;
        end[size] = endNs;
        size++;
    }
}
