package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.flagos.trace.model.OpStack;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stacks are kept by where they were opened ({@link OpStacks}): an op opened again at one call site
 * holds the same stack, and what is kept never prints a frame with another place's line, whether the
 * places differ by line, by method, or only by the overload (same name, same bytecode index). Both
 * caches stay at their bounds when far more call sites come, and what comes past them is still
 * printed right, only not kept.
 */
class OpStacksTest {
    @TempDir
    Path tmp;

    @Test
    void opsOpenedAtOneCallSiteShareOneStackThatPrintsItsLine() {
        try (ProfilerSession session = Profiler.start(SessionOptions.to(tmp.resolve("t.json")).withStack(2))) {
            OpStack first = null;
            for (int i = 0; i < 3; i++) {
                int line = new Throwable().getStackTrace()[0].getLineNumber() + 1;
                try (OpScope op = session.op("a")) {
                    if (first == null) {
                        first = op.stack();
                    }
                    assertSame(first, op.stack(), "the same call site: the stack kept the first time");
                    assertEquals(here("opsOpenedAtOneCallSiteShareOneStackThatPrintsItsLine", line), op.stack().frame(0));
                }
            }
        }
    }

    @Test
    void twoLinesOfOneMethodAreTwoStacks() {
        try (ProfilerSession session = Profiler.start(SessionOptions.to(tmp.resolve("t.json")).withStack(1))) {
            for (int i = 0; i < 2; i++) { // the second pass reads what the first kept
                int line = new Throwable().getStackTrace()[0].getLineNumber() + 1;
                OpScope a = session.op("a");
                a.close();
                OpScope b = session.op("b");
                b.close();
                assertNotSame(a.stack(), b.stack());
                assertEquals(here("twoLinesOfOneMethodAreTwoStacks", line), a.stack().frame(0));
                assertEquals(here("twoLinesOfOneMethodAreTwoStacks", line + 2), b.stack().frame(0));
            }
        }
    }

    @Test
    void overloadsAtTheSameBytecodeIndexKeepTheirOwnLines() {
        try (ProfilerSession session = Profiler.start(SessionOptions.to(tmp.resolve("t.json")).withStack(1))) {
            for (int i = 0; i < 2; i++) {
                int[] intLine = new int[1];
                int[] longLine = new int[1];
                OpStack ofInt = open(session, intLine, 1);
                OpStack ofLong = open(session, longLine, 1L);
                assertEquals(here("open", intLine[0]), ofInt.frame(0));
                assertEquals(here("open", longLine[0]), ofLong.frame(0));
            }
        }
    }

    @Test
    void framesPastTheBoundArePrintedButNotKept() {
        OpStacks.Kept kept = new OpStacks.Kept(OpStacks.MAX_FRAMES_KEPT, OpStacks.MAX_STACK_BYTES);
        int sites = OpStacks.MAX_FRAMES_KEPT + 1000;
        String first = null;
        for (int i = 0; i < sites; i++) {
            String printed = printed(i);
            String got = kept.keepFrame(site(i), printed);
            assertEquals(printed(i), got);
            if (i == 0) {
                first = got;
            }
        }
        assertEquals(OpStacks.MAX_FRAMES_KEPT, kept.framesKept());
        assertSame(first, kept.knownFrame(site(0)), "kept before the bound");
        assertEquals(printed(OpStacks.MAX_FRAMES_KEPT - 1), kept.knownFrame(site(OpStacks.MAX_FRAMES_KEPT - 1)));
        for (int i = OpStacks.MAX_FRAMES_KEPT; i < sites; i += 97) {
            assertNull(kept.knownFrame(site(i)), "past the bound: not kept");
            String again = printed(i);
            assertSame(again, kept.keepFrame(site(i), again), "past the bound: the frame given, printed as it is");
        }
        assertEquals(OpStacks.MAX_FRAMES_KEPT, kept.framesKept());
    }

    @Test
    void stacksPastTheByteBoundAreBuiltButNotKept() {
        OpStacks.Kept kept = new OpStacks.Kept(OpStacks.MAX_FRAMES_KEPT, OpStacks.MAX_STACK_BYTES);
        long each = 4L * OpStack.ofTruncated(stackOf(0), 8).joinedUtf8().length; // every stack here is as long
        long fit = OpStacks.MAX_STACK_BYTES / each;
        int stacks = (int) fit + 500;
        OpStack firstKept = null;
        for (int s = 0; s < stacks; s++) {
            OpStack stack = kept.stack(stackOf(s));
            assertEquals(8, stack.depth());
            assertEquals(printed(s * 8L + 7), stack.frame(7));
            if (s == 0) {
                firstKept = stack;
            }
        }
        assertEquals(fit, kept.stacksKept(), "as many stacks as fit in the bound");
        assertEquals(fit * each, kept.stackBytesKept());
        assertTrue(kept.stackBytesKept() <= OpStacks.MAX_STACK_BYTES && kept.stackBytesKept() + each > OpStacks.MAX_STACK_BYTES,
                "at the bound: " + kept.stackBytesKept());
        assertSame(firstKept, kept.stack(stackOf(0)), "kept before the bound: the same stack again");
        for (int s = (int) fit; s < stacks; s += 50) {
            OpStack once = kept.stack(stackOf(s));
            OpStack again = kept.stack(stackOf(s));
            assertNotSame(once, again, "past the bound: built for each op, not kept");
            assertEquals(once.joined(), again.joined());
            assertEquals(String.join(";", stackOf(s)), once.joined());
        }
        assertEquals(fit, kept.stacksKept());
        assertEquals(fit * each, kept.stackBytesKept());
    }

    /** A call site of its own for every {@code i}: a method and bytecode index no class has. */
    private static OpStacks.Where site(int i) {
        return new OpStacks.Where(OpStacksTest.class, "site" + i, "()V", i);
    }

    /** Frame text of one length for all {@code i} up to 10^9: a fixed-width number. */
    private static String printed(long i) {
        return String.format("com.example.synthetic.Module.call%010d(Module.java:%d)", i, 1 + i % 9);
    }

    /** Eight frames of their own for stack {@code s}. */
    private static String[] stackOf(int s) {
        String[] frames = new String[8];
        for (int f = 0; f < 8; f++) {
            frames[f] = printed(s * 8L + f);
        }
        return frames;
    }

    // Two overloads with the same body: the op is opened at the same bytecode index in each.
    private static OpStack open(ProfilerSession session, int[] line, int ignored) {
        line[0] = new Throwable().getStackTrace()[0].getLineNumber() + 1;
        try (OpScope op = session.op("x")) {
            return op.stack();
        }
    }

    private static OpStack open(ProfilerSession session, int[] line, long ignored) {
        line[0] = new Throwable().getStackTrace()[0].getLineNumber() + 1;
        try (OpScope op = session.op("x")) {
            return op.stack();
        }
    }

    private static String here(String method, int line) {
        return OpStacksTest.class.getName() + "." + method + "(OpStacksTest.java:" + line + ")";
    }
}
