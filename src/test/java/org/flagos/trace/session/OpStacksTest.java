package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.file.Path;
import org.flagos.trace.model.OpStack;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stacks are kept by where they were opened ({@link OpStacks}): an op opened again at one call site
 * holds the same stack, and what is kept never prints a frame with another place's line, whether the
 * places differ by line, by method, or only by the overload (same name, same bytecode index).
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
