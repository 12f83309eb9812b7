package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/** Issue 30, item 6: a name from a file is printed with its control characters made visible. */
class TerminalTextTest {
    @Test
    void controlCharactersAreEscapedVisibly() {
        assertEquals("\\x1b]0;owned\\x07\\x1b[2Jop", TerminalText.safe("\u001b]0;owned\u0007\u001b[2Jop"));
        assertEquals("a\\x00b\\rc\\nd\\te", TerminalText.safe("a\u0000b\rc\nd\te"));
        assertEquals("del\\x7f c1\\u009b bidi\\u202e", TerminalText.safe("del\u007f c1\u009b bidi\u202e"));
        assertEquals("back\\\\x1b", TerminalText.safe("back\\x1b"), "a backslash is doubled only before what reads as an escape");
    }

    @Test
    void ordinaryNamesAreTheSameString() {
        String name = "aten::matmul void at::native::elementwise_kernel<128, 4>(int) 中文 é";
        assertSame(name, TerminalText.safe(name));
        assertEquals("null", TerminalText.safe(null));
    }
}
