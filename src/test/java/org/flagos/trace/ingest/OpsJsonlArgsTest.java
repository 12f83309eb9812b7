package org.flagos.trace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.model.OpArgs;
import org.flagos.trace.model.OpStack;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Op args and stacks in an ops file: written, read back equal (whole read and stream), and hostile ones refused in one line. */
class OpsJsonlArgsTest {
    private static final OpArgs ARGS = OpArgs.builder().inputDims(new long[] {2, 3}, new long[0]).inputTypes("float", "")
            .concreteInputs("", "1").add("n", -7L).add("x", 1.5e-300).add("s", "ü \u0001 \"q\"").add("v", new long[] {Long.MIN_VALUE})
            .add("t", new String[] {"a", ""}).build();
    private static final OpStack STACK = OpStack.of(List.of("a.B.c(B.java:1)", "a.B.main(B.java:9)"));

    @TempDir
    Path dir;

    @Test
    void argsAndStacksRoundTripThroughTheFile() throws Exception {
        Path file = dir.resolve("x.ops.jsonl");
        OpsJsonlWriter w = new OpsJsonlWriter(file, 10);
        w.op(new HostOp("mm", new ExternalId(0), 5, 11, 20, "main", ARGS, STACK));
        w.op(new HostOp("plain", new ExternalId(1), 5, 12, 19, "main"));
        w.close(30);
        List<HostOp> read = OpsJsonlReader.read(file).ops();
        assertEquals(ARGS, read.get(0).args());
        assertEquals(ARGS.toJson(), read.get(0).args().toJson(), "the same bytes: replays of the file give the same trace");
        assertEquals(STACK, read.get(0).stack());
        assertNull(read.get(1).args());
        assertNull(read.get(1).stack());
        List<HostOp> streamed = new ArrayList<>();
        try (HostOpCursor c = OpsJsonlReader.scan(file).cursor()) {
            for (HostOp op; (op = c.next()) != null; ) {
                streamed.add(op);
            }
        }
        assertEquals(read, streamed);
    }

    static List<String[]> hostile() {
        String many = "{" + String.join(",", java.util.stream.IntStream.range(0, 65).mapToObj(i -> "\"k" + i + "\":1").toList()) + "}";
        String huge = "{\"Input Dims\":[" + "[1,2,3,4,5,6,7,8]," .repeat(2000) + "[1]]}";
        String deep = "[" + "\"f\",".repeat(200) + "\"f\"]";
        return List.of(
                new String[] {"{\"x\":true}", "op arg 'x': a value is an integer"},
                new String[] {"{\"x\":null}", "op arg 'x'"},
                new String[] {"{\"x\":{\"y\":1}}", "op arg 'x'"},
                new String[] {"{\"x\":[1,\"a\"]}", "only integers"},
                new String[] {"{\"x\":[[1],2]}", "only lists of integers"},
                new String[] {"{\"x\":[[[1]]]}", "only integers"},
                new String[] {"{\"x\":99999999999999999999}", "64 bits"},
                new String[] {"{\"x\":1,\"x\":2}", "given twice"},
                new String[] {"{\"Ev Idx\":1}", "flagtrace writes this key itself"},
                new String[] {"{\"\":1}", "non-empty key"},
                new String[] {"{\"" + "k".repeat(300) + "\":1}", "at most 256"},
                new String[] {many, "at most 64 args"},
                new String[] {huge, "list elements"},
                new String[] {"[1]", "\"args\" must be a JSON object"},
                new String[] {"STACK" + deep, "more than 128 frames"},
                new String[] {"STACK[1]", "frames as strings"},
                new String[] {"STACK[\"" + "f".repeat(2000) + "\"]", "at most 1024"},
                new String[] {"STACK{}", "JSON array of frames"});
    }

    @ParameterizedTest
    @MethodSource("hostile")
    void hostileArgsAreOneClearErrorWithTheLine(String value, String expected) throws Exception {
        String field = value.startsWith("STACK") ? "\"stack\":" + value.substring(5) : "\"args\":" + value;
        String text = "{\"window_start\":1}\n{\"name\":\"a\",\"external_id\":0,\"start\":1,\"end\":2}\n"
                + "{\"name\":\"b\",\"external_id\":1,\"start\":1,\"end\":2," + field + "}\n{\"window_end\":2}\n";
        CaptureFormatException e = assertThrows(CaptureFormatException.class,
                () -> OpsJsonlReader.read(new BufferedReader(new StringReader(text)), "ops"));
        assertTrue(e.getMessage().startsWith("ops:3: "), e.getMessage());
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), "one line");
        Path file = dir.resolve("hostile.ops.jsonl");
        Files.writeString(file, text);
        CaptureFormatException scanned = assertThrows(CaptureFormatException.class, () -> OpsJsonlReader.scan(file));
        assertTrue(scanned.getMessage().endsWith(e.getMessage().substring("ops".length())), scanned.getMessage());
    }
}
