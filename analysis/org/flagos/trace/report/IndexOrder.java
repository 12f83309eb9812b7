package org.flagos.trace.report;

/** A stable merge sort of event indices; equal keys keep their order in the trace. */
final class IndexOrder {
    /** Orders two event indices: negative, zero or positive. */
    interface Comparison {
        int compare(int a, int b);
    }

    static void sort(int[] idx, int length, Comparison cmp) {
        int[] tmp = new int[length];
        for (int width = 1; width < length; width *= 2) {
            for (int lo = 0; lo < length - width; lo += 2 * width) {
                int mid = lo + width;
                int hi = Math.min(lo + 2 * width, length);
                if (cmp.compare(idx[mid - 1], idx[mid]) <= 0) {
                    continue; // already in order
                }
                int i = lo;
                int j = mid;
                int k = lo;
                while (i < mid && j < hi) {
                    tmp[k++] = cmp.compare(idx[i], idx[j]) <= 0 ? idx[i++] : idx[j++];
                }
                while (i < mid) {
                    tmp[k++] = idx[i++];
                }
                while (j < hi) {
                    tmp[k++] = idx[j++];
                }
                System.arraycopy(tmp, lo, idx, lo, hi - lo);
            }
        }
    }

    private IndexOrder() {
    }
}
