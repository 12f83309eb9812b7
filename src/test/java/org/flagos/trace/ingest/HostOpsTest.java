package org.flagos.trace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;

/**
 * {@link HostOps}: its cursor gives the ops of the H200 app's ops file in the order held, then null for ever (a
 * reader's end), the same ops as streaming the file gives; ops built without warnings have none.
 */
class HostOpsTest {
    @Test
    void theCursorGivesTheOpsInOrderThenNull() throws Exception {
        HostOps ops = OpsJsonlReader.read(Captures.ops("h200-app"));
        List<HostOp> seen = new ArrayList<>();
        try (HostOpCursor c = ops.cursor()) {
            for (HostOp op = c.next(); op != null; op = c.next()) {
                seen.add(op);
            }
            assertNull(c.next(), "still null after the end");
        }
        assertEquals(ops.ops(), seen);
        List<HostOp> streamed = new ArrayList<>();
        try (HostOpCursor c = OpsJsonlReader.scan(Captures.ops("h200-app")).cursor()) {
            for (HostOp op = c.next(); op != null; op = c.next()) {
                streamed.add(op);
            }
        }
        assertEquals(streamed, seen, "held and streamed give the same ops");
    }

    @Test
    void opsBuiltWithoutWarningsHaveNone() {
        HostOps none = new HostOps(1, 2, List.of());
        assertEquals(List.of(), none.warnings());
        try (HostOpCursor c = none.cursor()) {
            assertNull(c.next());
        }
    }
}
