package org.flagos.trace.report;

import java.io.IOException;

/** Where fixed-width records of longs go, one at a time: a {@link RecordSorter}, or what sums them as they come. */
interface RecordSink {
    /** Takes {@code record} (its longs are copied, or read at once: the caller reuses the array). */
    void add(long[] record) throws IOException;
}
