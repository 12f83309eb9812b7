package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link OpStack}: its bounds, its refusals, and the JSON forms a parser reads back to the frames. */
class OpStackTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static final List<String> FRAMES = List.of(
            "com.example.Model.forward(Model.java:42)",
            "com.example.Train.step(Train.java:7)",
            "quote\"back\\slash\ttab é 漢 \uD83D\uDE00");

    @Test
    void accessorsGiveTheFramesInnermostFirst() {
        OpStack s = OpStack.of(FRAMES);
        assertEquals(3, s.depth());
        assertEquals(FRAMES.get(0), s.frame(0));
        assertEquals(FRAMES.get(2), s.frame(2));
        assertEquals(FRAMES, s.frames());
        assertEquals(String.join(";", FRAMES), s.joined());
        assertEquals(s.joined(), s.toString());
        assertArrayEquals(s.joined().getBytes(StandardCharsets.UTF_8), s.joinedUtf8());
    }

    @Test
    void jsonIsOneStringOfTheJoinedFramesThatAParserReadsBack() throws Exception {
        OpStack s = OpStack.of(FRAMES);
        JsonNode n = JSON.readTree(s.json());
        assertTrue(n.isTextual());
        assertEquals(String.join(";", FRAMES), n.textValue());
        assertEquals("\"a;b\"", new String(OpStack.of(List.of("a", "b")).json(), StandardCharsets.UTF_8));
    }

    @Test
    void framesJsonIsAnArrayOfTheFrames() throws Exception {
        OpStack s = OpStack.of(FRAMES);
        JsonNode n = JSON.readTree(s.framesJson());
        assertTrue(n.isArray());
        assertEquals(3, n.size());
        for (int i = 0; i < 3; i++) {
            assertEquals(FRAMES.get(i), n.get(i).textValue());
        }
        assertEquals("[\"a\",\"b\"]", OpStack.of(List.of("a", "b")).framesJson());
        assertEquals("[]", OpStack.of(List.of()).framesJson());
        assertEquals("\"\"", new String(OpStack.of(List.of()).json(), StandardCharsets.UTF_8));
    }

    @Test
    void ofTakesExactlyTheBoundsAndRefusesOnePast() {
        List<String> max = Collections.nCopies(OpStack.MAX_FRAMES, "f");
        assertEquals(OpStack.MAX_FRAMES, OpStack.of(max).depth());
        List<String> tooMany = new ArrayList<>(max);
        tooMany.add("f");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> OpStack.of(tooMany));
        assertTrue(e.getMessage().contains("at most 128 frames, not 129"), e.getMessage());

        String longest = "x".repeat(OpStack.MAX_FRAME_CHARS);
        assertEquals(longest, OpStack.of(List.of(longest)).frame(0));
        e = assertThrows(IllegalArgumentException.class, () -> OpStack.of(List.of("a", longest + "x")));
        assertTrue(e.getMessage().contains("stack frame 1 is 1025 characters long"), e.getMessage());
    }

    @Test
    void ofRefusesNullAndEmptyFrames() {
        assertThrows(IllegalArgumentException.class, () -> OpStack.of(List.of("a", "")));
        assertThrows(IllegalArgumentException.class, () -> OpStack.of(Arrays.asList("a", null)));
    }

    @Test
    void ofTruncatedCutsToTheBoundsAndHonoursTheCount() {
        String[] frames = new String[OpStack.MAX_FRAMES + 5];
        Arrays.fill(frames, "y".repeat(OpStack.MAX_FRAME_CHARS + 10));
        frames[0] = "inner";
        OpStack cut = OpStack.ofTruncated(frames, frames.length);
        assertEquals(OpStack.MAX_FRAMES, cut.depth());
        assertEquals("inner", cut.frame(0));
        assertEquals(OpStack.MAX_FRAME_CHARS, cut.frame(1).length());

        OpStack two = OpStack.ofTruncated(new String[] {"a", "b", "c"}, 2);
        assertEquals(List.of("a", "b"), two.frames());
    }

    @Test
    void theCopyIsTheStacksOwnAndEqualityFollowsTheFrames() {
        List<String> src = new ArrayList<>(List.of("a", "b"));
        OpStack s = OpStack.of(src);
        src.set(0, "changed");
        assertEquals("a", s.frame(0));
        assertEquals(OpStack.of(List.of("a", "b")), s);
        assertEquals(OpStack.of(List.of("a", "b")).hashCode(), s.hashCode());
        assertNotEquals(OpStack.of(List.of("b", "a")), s);
        assertNotEquals(OpStack.of(List.of("a")), s);
        assertThrows(UnsupportedOperationException.class, () -> s.frames().add("c"));
    }
}
