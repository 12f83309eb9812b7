package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Op args are checked and encoded once, as torch writes its own; bad keys and values are refused by name. */
class OpArgsTest {
    @Test
    void torchsInputKeysAndOthersAreEncodedOnce() {
        OpArgs a = OpArgs.builder().add("flops", 12L).inputDims(new long[] {256, 256}, new long[0]).add("alpha", 0.25)
                .inputTypes("float", "").add("note", "a\"b").build();
        assertEquals("{\"flops\":12,\"Input Dims\":[[256,256],[]],\"alpha\":0.25,\"Input type\":[\"float\",\"\"],\"note\":\"a\\\"b\"}",
                a.toJson());
        assertEquals("[[256,256],[]]", text(a.torchInputJson(0)));
        assertNull(a.torchInputJson(1), "Input Strides not given");
        assertEquals("[\"float\",\"\"]", text(a.torchInputJson(2)));
        assertEquals(",\"flops\":12,\"alpha\":0.25,\"note\":\"a\\\"b\"", text(a.extraMembersJson()));
        assertEquals(OpArgs.Kind.INTEGER, a.kind(0));
        assertEquals(OpArgs.Kind.LIST, a.kind(1));
        assertEquals(OpArgs.Kind.DOUBLE, a.kind(2));
        assertEquals(OpArgs.Kind.STRING, a.kind(4));
    }

    @Test
    void badKeysAndValuesAreRefusedByName() {
        assertRefused(() -> OpArgs.builder().add("Ev Idx", 1L), "op arg 'Ev Idx': flagtrace writes this key itself");
        assertRefused(() -> OpArgs.builder().add("Call stack", "x"), "flagtrace writes this key itself");
        assertRefused(() -> OpArgs.builder().add("k", 1L).add("k", 2L), "op arg 'k': the key is given twice");
        assertRefused(() -> OpArgs.builder().add("k", Double.NaN), "op arg 'k': a number must be finite");
        assertRefused(() -> OpArgs.builder().add("k", (String) null), "op arg 'k': the value is null");
        assertRefused(() -> OpArgs.builder().add("k", new long[][] {{1}, null}), "op arg 'k': element 1 is null");
        assertRefused(() -> OpArgs.builder().add(null, 1L), "non-empty key");
        assertRefused(() -> OpArgs.builder().add("a\nb", 1L), "control characters");
        assertRefused(() -> OpArgs.builder().add("k", new long[OpArgs.MAX_VALUE_BYTES]), "more than 16384 bytes");
        OpArgs.Builder b = OpArgs.builder();
        for (int i = 0; i < OpArgs.MAX_ARGS; i++) {
            b.add("k" + i, i);
        }
        assertRefused(() -> b.add("one more", 1L), "at most 64 args");
    }

    @Test
    void aStackIsKinetosCallStackString() {
        OpStack s = OpStack.of(List.of("a.B.c(B.java:1)", "a.B.main(B.java:9)"));
        assertEquals("\"a.B.c(B.java:1);a.B.main(B.java:9)\"", text(s.json()));
        assertEquals("[\"a.B.c(B.java:1)\",\"a.B.main(B.java:9)\"]", s.framesJson());
        assertRefused(() -> OpStack.of(List.of("")), "stack frame 0 is empty");
        String[] many = new String[200];
        java.util.Arrays.fill(many, "x".repeat(2000));
        OpStack cut = OpStack.ofTruncated(many, many.length);
        assertEquals(OpStack.MAX_FRAMES, cut.depth());
        assertEquals(OpStack.MAX_FRAME_CHARS, cut.frame(0).length());
    }

    private static void assertRefused(Runnable r, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
