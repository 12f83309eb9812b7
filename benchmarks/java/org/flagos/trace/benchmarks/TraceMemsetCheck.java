package org.flagos.trace.benchmarks;

import java.io.IOException;
import java.nio.file.Path;
import org.flagos.trace.tracefile.TraceEvent;
import org.flagos.trace.tracefile.TraceReader;

/**
 * Checks a written trace the way {@link TeardownStress} checks the raw records: every memset event
 * with an {@code External id} must carry, as its {@code value}, that id's low byte (the stress fills
 * each memset with its op's id). The trace's attribution is the walk's, so this covers what the
 * host-op ledger and its settling bound do to the output, not only the join. Streams the file.
 */
final class TraceMemsetCheck {
    long memsets;
    /** Every {@code gpu_memset} in the trace, with an External id or without. */
    long allMemsets;
    long misattributed;
    String first = "none";

    static TraceMemsetCheck of(Path trace) throws IOException {
        TraceMemsetCheck check = new TraceMemsetCheck();
        TraceReader.read(trace, "not a trace", TraceReader.Options.FIELDS, check::event);
        return check;
    }

    private void event(TraceEvent e) {
        if (!"gpu_memset".equals(e.cat())) {
            return;
        }
        allMemsets++;
        long external = e.externalId();
        long value = e.value();
        if (external >= 0 && value >= 0) {
            memsets++;
            if ((external & 0xff) != value) {
                misattributed++;
                if (misattributed == 1) {
                    first = "External id " + external + " value " + value;
                }
            }
        }
    }
}
