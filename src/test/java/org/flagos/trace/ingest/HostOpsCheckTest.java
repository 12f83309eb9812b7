package org.flagos.trace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link HostOpsCheck}: the bundled ops files' ops all lie in their capture windows (no warning); the same ops against a
 * window moved past some, past all, and an empty window say so, with the counts; an op touching a window's edge is in it.
 */
class HostOpsCheckTest {
    @TempDir
    Path dir;

    @Test
    void theBundledOpsLieInTheirWindows() {
        for (String capture : List.of("h200-app", "h200-app-tiny2k", "h200-mt4")) {
            HostOps ops = OpsJsonlReader.read(Captures.ops(capture));
            long outside = ops.ops().stream().filter(op -> HostOpsCheck.outside(op, ops.windowStartNs(), ops.windowEndNs())).count();
            assertEquals(0, outside, capture);
            assertEquals(List.of(), HostOpsCheck.warnings(ops.ops().size(), 0, ops.windowStartNs(), ops.windowEndNs()), capture);
            assertEquals(List.of(), ops.warnings(), capture);
        }
    }

    @Test
    void aWindowThatMissesOpsSaysHowMany() throws Exception {
        HostOps app = OpsJsonlReader.read(Captures.ops("h200-app"));
        HostOp first = app.ops().get(0);
        long cut = first.endNs() + 1; // after the first op ends: it, and every op that ended before, lie outside
        long outside = app.ops().stream().filter(op -> HostOpsCheck.outside(op, cut, app.windowEndNs())).count();
        assertTrue(outside >= 1 && outside < app.ops().size(), "" + outside);
        assertEquals(List.of(outside + " of " + app.ops().size() + " ops lie outside the capture window and are dropped"),
                HostOpsCheck.warnings(app.ops().size(), outside, cut, app.windowEndNs()));
        // the reader says the same of a file with that window
        StringBuilder file = new StringBuilder("{\"window_start\":" + cut + "}\n");
        for (String line : Files.readAllLines(Captures.ops("h200-app"))) {
            if (!line.contains("window_")) {
                file.append(line).append('\n');
            }
        }
        file.append("{\"window_end\":").append(app.windowEndNs()).append("}\n");
        Path moved = Files.writeString(dir.resolve("moved.ops.jsonl"), file);
        assertTrue(OpsJsonlReader.read(moved).warnings().contains(outside + " of " + app.ops().size()
                + " ops lie outside the capture window and are dropped"), OpsJsonlReader.read(moved).warnings().toString());

        assertEquals(List.of("the capture window [1, 2] holds none of the 7 ops: every op is dropped"), HostOpsCheck.warnings(7, 7, 1, 2));
        assertEquals(List.of("the capture window [5, 5] holds none of the 3 ops: every op is dropped",
                "the capture window is empty (window_start equals window_end)"), HostOpsCheck.warnings(3, 3, 5, 5));
        assertEquals(List.of("the capture window is empty (window_start equals window_end)"), HostOpsCheck.warnings(0, 0, 5, 5));
        assertEquals(List.of(), HostOpsCheck.warnings(0, 0, 1, 2), "no op, nothing to say");
    }

    @Test
    void anOpTouchingAnEdgeIsInside() {
        HostOp op = new HostOp("op", new ExternalId(1), 1, 100, 200);
        assertFalse(HostOpsCheck.outside(op, 200, 300), "ends where the window starts");
        assertFalse(HostOpsCheck.outside(op, 0, 100), "starts where the window ends");
        assertTrue(HostOpsCheck.outside(op, 201, 300));
        assertTrue(HostOpsCheck.outside(op, 0, 99));
        assertFalse(HostOpsCheck.outside(op, 150, 160), "around the window");
    }
}
