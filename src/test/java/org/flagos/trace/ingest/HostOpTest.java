package org.flagos.trace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.model.OpStack;
import org.junit.jupiter.api.Test;

/** {@link HostOp}: its shorter constructors' defaults and {@link HostOp#hasThread()}. */
class HostOpTest {
    @Test
    void shortConstructorsMakeAnOpWithoutNameArgsStackOrAnnotation() {
        HostOp op = new HostOp("aten::mm", new ExternalId(0), 17, 100, 200);
        assertEquals(new HostOp("aten::mm", new ExternalId(0), 17, 100, 200, null, null, null, false), op);
        assertNull(op.threadName());
        assertFalse(op.annotation());
        HostOp named = new HostOp("aten::mm", new ExternalId(3), 17, 100, 200, "worker-3");
        assertEquals("worker-3", named.threadName());
        assertNull(named.args());
        assertFalse(named.annotation());
        OpStack stack = OpStack.of(List.of("a.B.c(B.java:1)"));
        HostOp withStack = new HostOp("x", new ExternalId(1), 1, 0, 1, "main", null, stack);
        assertEquals(stack, withStack.stack());
        assertFalse(withStack.annotation());
        assertTrue(new HostOp("ProfilerStep#1", new ExternalId(2), 1, 0, 1, "main", null, null, true).annotation());
    }

    @Test
    void onlyNoThreadHasNoThread() {
        assertFalse(new HostOp("x", new ExternalId(0), HostOp.NO_THREAD, 0, 1).hasThread());
        assertTrue(new HostOp("x", new ExternalId(0), 0, 0, 1).hasThread());
        assertTrue(new HostOp("x", new ExternalId(0), -2, 0, 1).hasThread());
        assertTrue(new HostOp("x", new ExternalId(0), Long.MAX_VALUE, 0, 1).hasThread());
    }
}
