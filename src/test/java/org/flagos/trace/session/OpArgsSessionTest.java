package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.capture.JournalReplay;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.ingest.OpsJsonlReader;
import org.flagos.trace.journal.JournalWindow;
import org.flagos.trace.model.OpArgs;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Op args and stacks from a live session: in the trace's {@code cpu_op} args as torch writes its
 * own, and the same after the ops file beside a dump and the journal are replayed, event for event.
 */
class OpArgsSessionTest {
    private static final long[] SHAPE = {256, 256};
    private static final OpArgs MM = OpArgs.builder().inputDims(SHAPE, SHAPE).inputStrides(new long[] {256, 1}, new long[] {256, 1})
            .inputTypes("float", "float").add("flops", 33_554_432L).add("alpha", 0.5).add("layout", "row \"major\"").build();

    @TempDir
    Path tmp;

    @Test
    void argsAndStacksSurviveTheOpsFileAndTheJournal() throws Exception {
        Path trace = tmp.resolve("trace.json");
        Path dump = tmp.resolve("capture.fltrbuf");
        Path journal = tmp.resolve("journal");
        try (ProfilerSession session = Profiler.start(SessionOptions.to(trace).withDumpBuffers(dump).withJournal(journal)
                .withStack(4))) {
            for (int i = 0; i < 20; i++) {
                try (OpScope step = session.op("step")) {
                    try (OpScope mm = session.op("aten::mm", MM)) {
                        assertEquals(MM, mm.args());
                        assertEquals(4, mm.stack().depth());
                    }
                }
            }
        }
        JsonNode live = TraceJson.MAPPER.readTree(Captures.open(trace));
        JsonNode mm = first(live, "aten::mm");
        JsonNode args = mm.get("args");
        assertEquals("[[256,256],[256,256]]", args.get("Input Dims").toString());
        assertEquals("[[256,1],[256,1]]", args.get("Input Strides").toString());
        assertEquals("[\"float\",\"float\"]", args.get("Input type").toString());
        assertEquals("[]", args.get("Concrete Inputs").toString(), "a torch key the args do not give stays empty");
        assertEquals(33_554_432L, args.get("flops").asLong());
        assertEquals(0.5, args.get("alpha").asDouble());
        assertEquals("row \"major\"", args.get("layout").asText());
        String stack = args.get("Call stack").asText();
        String[] frames = stack.split(";");
        assertEquals(4, frames.length);
        assertTrue(frames[0].startsWith(OpArgsSessionTest.class.getName() + ".argsAndStacksSurviveTheOpsFileAndTheJournal("
                + "OpArgsSessionTest.java:"), "the innermost frame is the code that opened the op, not the profiler's: " + stack);
        JsonNode step = first(live, "step");
        assertEquals("[]", step.get("args").get("Input Dims").toString());
        assertNotNull(step.get("args").get("Call stack"), "a session with stacks records one for every op");

        List<HostOp> ops = OpsJsonlReader.read(tmp.resolve("capture.ops.jsonl")).ops();
        assertEquals(MM, ops.get(0).args(), "the ops file beside the dump holds the args");
        CaptureReplay.Request request = CaptureReplay.request(dump, tmp.resolve("capture.ops.jsonl"), null, List.of(), Map.of());
        ByteArrayOutputStream replayed = new ByteArrayOutputStream();
        CaptureReplay.run(request, replayed);
        assertTrue(cpuOps(live).equals(cpuOps(TraceJson.MAPPER.readTree(replayed.toByteArray()))), "replayed from the ops file");

        ByteArrayOutputStream exported = new ByteArrayOutputStream();
        JournalReplay.run(JournalReplay.Request.of(journal, JournalWindow.ALL), exported);
        assertTrue(cpuOps(live).equals(cpuOps(TraceJson.MAPPER.readTree(exported.toByteArray()))), "exported from the journal");
        assertTrue(Files.exists(trace));
    }

    @Test
    void aSessionWithoutStacksWalksNone() throws Exception {
        Path trace = tmp.resolve("plain.json");
        try (ProfilerSession session = Profiler.start(SessionOptions.to(trace))) {
            try (OpScope op = session.op("aten::mm", MM)) {
                assertEquals(null, op.stack());
            }
        }
        JsonNode mm = first(TraceJson.MAPPER.readTree(Captures.open(trace)), "aten::mm");
        assertFalse(mm.get("args").has("Call stack"));
        assertEquals("[[256,256],[256,256]]", mm.get("args").get("Input Dims").toString());
    }

    private static JsonNode first(JsonNode trace, String name) {
        for (JsonNode e : trace.get("traceEvents")) {
            if ("cpu_op".equals(e.path("cat").asText()) && name.equals(e.path("name").asText())) {
                return e;
            }
        }
        throw new AssertionError("no cpu_op " + name);
    }

    /**
     * Every cpu_op whole (times, args, thread), in file order, but its pid: a session without a device
     * tracer draws its ops on its own pid, a replay of its dump, which holds no API record to give one,
     * clear of the device pids (as before args).
     */
    private static List<String> cpuOps(JsonNode trace) {
        List<String> ops = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("cpu_op".equals(e.path("cat").asText())) {
                ((com.fasterxml.jackson.databind.node.ObjectNode) e).remove("pid");
                ops.add(e.toString());
            }
        }
        assertEquals(40, ops.size());
        return ops;
    }
}
