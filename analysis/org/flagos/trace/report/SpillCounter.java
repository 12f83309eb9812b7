package org.flagos.trace.report;

/** Bytes written to temporary files while summarising one trace (all deleted before the summary returns). */
final class SpillCounter {
    private long bytes;

    void add(long n) {
        bytes += n;
    }

    long bytes() {
        return bytes;
    }
}
