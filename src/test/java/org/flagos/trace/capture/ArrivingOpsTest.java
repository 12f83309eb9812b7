package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.ingest.HostOpCursor;
import org.flagos.trace.ingest.HostOpSource;
import org.flagos.trace.ingest.HostOps;
import org.flagos.trace.ingest.OpsJsonlReader;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;

/**
 * A real capture's ops as they arrive: read back in order as the replay reads an ops file (its window's start, no end
 * until the close, no warning), and each thing the whole replay would see differently spoils it, in its words: an op
 * ending by a time the replay went on from, two ops of one External id, an op ending before the window.
 */
class ArrivingOpsTest {
    private final HostOps file = OpsJsonlReader.read(Captures.ops("h200-java-parity"));
    private final List<String> spoiled = new ArrayList<>();
    private final Arrivals arrivals = new Arrivals(128L << 20);

    private ArrivingOps ops(long windowStart) {
        return new ArrivingOps(arrivals, windowStart, 32L << 20, spoiled::add);
    }

    private void close() {
        arrivals.close(ArrivalsTest.CLOSING);
    }

    @Test
    void readBackInOrderAsTheOpsFileWithNothingSpoiled() {
        ArrivingOps ops = ops(file.windowStartNs());
        file.ops().forEach(ops::add);
        close();
        HostOpSource source = ops.source();
        assertEquals(file.windowStartNs(), source.windowStartNs());
        assertEquals(Long.MAX_VALUE, source.windowEndNs());
        assertEquals(List.of(), source.warnings());
        List<HostOp> read = new ArrayList<>();
        try (HostOpCursor cursor = source.cursor()) {
            for (HostOp op = cursor.next(); op != null; op = cursor.next(Long.MAX_VALUE)) {
                read.add(op);
            }
        }
        assertEquals(file.ops(), read);
        assertEquals(List.of(), spoiled);
        assertEquals(file.ops().stream().mapToLong(HostOp::startNs).max().getAsLong(), ops.latestStartNs());
    }

    @Test
    void anOpEndingByWhatTheReplayWentOnFromASharedIdAndAnOpBeforeTheWindowSpoilIt() {
        HostOp op = file.ops().get(0);
        ArrivingOps ops = ops(op.endNs() + 1);
        arrivals.tick(op.endNs());
        assertSame(HostOpCursor.NOT_YET, ops.next(op.endNs()));
        ops.add(op);
        ops.add(op);
        assertSame(op, ops.next(op.endNs()));
        assertSame(op, ops.next(op.endNs()));
        close();
        assertNull(ops.next(Long.MAX_VALUE));
        String late = "an op ending at " + op.endNs() + " arrived after records ending at " + op.endNs() + " went on without it";
        assertEquals(List.of(late, "ops lie outside the window", late, "two ops share the External id " + op.externalId().value(),
                "ops lie outside the window"), spoiled);
    }
}
