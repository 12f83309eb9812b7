package org.flagos.trace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.model.OpArgs;
import org.flagos.trace.model.OpStack;
import org.junit.jupiter.api.Test;

/**
 * {@link OpDetailJson}: the args of every op of the H200 ops files that carry them (written on the device) and of every
 * op of torch's own H200 trace ({@code Input Dims}, {@code Input type}, {@code Concrete Inputs}, strides, ids) read back
 * into {@link OpArgs} whose JSON is the same document as Jackson reads it; stacks likewise; and each malformed or
 * oversized value refused with its one line naming the arg, before memory past the bounds is taken.
 */
class OpDetailJsonTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static List<JsonNode> argsOf(Path opsFile) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        for (String line : Files.readAllLines(opsFile)) {
            JsonNode op = MAPPER.readTree(line);
            if (op.has("args")) {
                out.add(op.get("args"));
            }
        }
        return out;
    }

    @Test
    void theArgsOfTheH200OpsFilesAndOfTorchsTraceReadBackAsTheSameDocument() throws Exception {
        List<JsonNode> all = new ArrayList<>();
        all.addAll(argsOf(Path.of("src/test/resources/captures/h200-java-kinds/h200-java-kinds.ops.jsonl")));
        all.addAll(argsOf(Path.of("src/test/resources/captures/h200-java-managed/h200-java-managed.ops.jsonl")));
        assertEquals(14, all.size(), "7 ops with args in each H200 ops file");
        int torch = 0;
        for (JsonNode e : MAPPER.readTree(Path.of("src/test/resources/torch-reference/torch_trace.json").toFile()).get("traceEvents")) {
            if ("cpu_op".equals(e.path("cat").asText()) && e.has("args")) {
                com.fasterxml.jackson.databind.node.ObjectNode args = e.get("args").deepCopy();
                args.remove(OpArgs.RESERVED_KEYS); // the ids and fields flagtrace writes itself
                all.add(args);
                torch++;
            }
        }
        assertTrue(torch >= 37, "torch's ops with shapes: " + torch);
        for (JsonNode want : all) {
            OpArgs args = OpDetailJson.argsOf(MAPPER.writeValueAsString(want));
            assertEquals(want, MAPPER.readTree(args.toJson()), want.toString());
            assertEquals(args, OpDetailJson.argsOf(args.toJson()), "read, written and read again: equal");
        }
        assertNull(OpDetailJson.argsOf(null));
        assertNull(OpDetailJson.stackOf(null));
    }

    @Test
    void aStackReadsBackFrameForFrameUpToItsBound() {
        List<String> frames = new ArrayList<>();
        for (int i = 0; i < OpStack.MAX_FRAMES; i++) {
            frames.add("model.py(" + i + "): forward \"q\" \u00e9");
        }
        String json;
        try {
            json = MAPPER.writeValueAsString(frames);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        OpStack stack = OpDetailJson.stackOf(json);
        assertEquals(OpStack.of(frames), stack);
        assertEquals(stack, OpDetailJson.stackOf(stack.framesJson()));
        frames.add("one more");
        String over = frames.stream().map(f -> "\"" + f.replace("\"", "\\\"") + "\"").reduce((a, b) -> a + "," + b).map(s -> "[" + s + "]").get();
        assertEquals("\"stack\" has more than " + OpStack.MAX_FRAMES + " frames", refusedStack(over));
        assertEquals("\"stack\" holds frames as strings", refusedStack("[\"a\", 3]"));
        assertEquals("\"stack\" must be a JSON array of frames", refusedStack("{\"a\": 1}"));
        assertEquals("text after the stack", refusedStack("[\"a\"] [\"b\"]"));
        assertTrue(refusedStack("[\"a\"").startsWith("unreadable op stack: ") || refusedStack("[\"a\"").startsWith("invalid JSON in the op's stack"));
    }

    private static String refusedStack(String json) {
        return assertThrows(IllegalArgumentException.class, () -> OpDetailJson.stackOf(json)).getMessage();
    }

    private static JsonNode readTree(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static String refused(String json) {
        String m = assertThrows(IllegalArgumentException.class, () -> OpDetailJson.argsOf(json)).getMessage();
        assertTrue(!m.contains("\n"), m);
        return m;
    }

    @Test
    void eachBadValueIsRefusedNamingItsArg() {
        assertEquals("\"args\" must be a JSON object", refused("[1]"));
        assertEquals("op arg 'n': an integer must fit in 64 bits", refused("{\"n\": 9223372036854775808}"));
        assertEquals(Long.MAX_VALUE, readTree(OpDetailJson.argsOf("{\"n\": 9223372036854775807}").toJson()).get("n").asLong(), "2^63 - 1 fits");
        assertEquals("op arg 'b': a value is an integer, a number, a string, or a list of integers, of integer lists or of strings, not true",
                refused("{\"b\": true}"));
        assertTrue(refused("{\"o\": {\"x\": 1}}").startsWith("op arg 'o': a value is an integer"));
        assertTrue(refused("{\"z\": null}").endsWith(" not null"));
        assertEquals("op arg 'l': a list holds integers, integer lists or strings", refused("{\"l\": [1.5]}"));
        assertEquals("op arg 'l': a list of strings holds only strings", refused("{\"l\": [\"a\", 1]}"));
        assertEquals("op arg 'l': a list of integers holds only integers of 64 bits", refused("{\"l\": [1, \"a\"]}"));
        assertEquals("op arg 'l': a list of integers holds only integers of 64 bits", refused("{\"l\": [1, 18446744073709551616]}"));
        assertEquals("op arg 'l': a list of lists holds only lists of integers", refused("{\"l\": [[1], 2]}"));
        assertEquals("op arg 'l': a list of integers holds only integers of 64 bits", refused("{\"l\": [[1], [\"x\"]]}"));
        assertEquals("text after the args", refused("{} {}"));
        assertTrue(refused("{\"a\": [1, 2").startsWith("unreadable op args: ") || refused("{\"a\": [1, 2").startsWith("invalid JSON"));
        assertTrue(refused("{\"a\": ]").startsWith("invalid JSON in the op's args ("), refused("{\"a\": ]"));
    }

    @Test
    void theListElementsOfOneOpAreBoundedAcrossItsArgsWhileTheyAreRead() {
        int max = OpArgs.MAX_VALUE_BYTES / 2;
        String over = assertThrows(IllegalArgumentException.class, () -> OpDetailJson.argsOf("{\"a\": " + zeros(max + 1) + "}")).getMessage();
        assertEquals("op arg 'a': the op's args hold more than " + max + " list elements (at most " + OpArgs.MAX_VALUE_BYTES
                + " bytes as JSON)", over);
        String across = assertThrows(IllegalArgumentException.class, () -> OpDetailJson.argsOf(
                "{\"a\": " + zeros(max / 2) + ", \"b\": " + zeros(max / 2 + 1) + "}")).getMessage();
        assertTrue(across.startsWith("op arg 'b': the op's args hold more than " + max + " list elements"),
                "counted over all the op's lists (b alone holds " + (max / 2 + 1) + "): " + across);
        String lists = assertThrows(IllegalArgumentException.class, () -> OpDetailJson.argsOf(
                "{\"a\": " + zeros(max / 2) + ", \"b\": " + zeros(max / 2 + 1).replace("0", "[]") + "}")).getMessage();
        assertTrue(lists.startsWith("op arg 'b': the op's args hold more than "), "an empty inner list counts as an element: " + lists);
    }

    private static String zeros(int n) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : ",").append('0');
        }
        return b.append(']').toString();
    }
}
