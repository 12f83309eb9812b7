package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.flagos.trace.tracefile.TraceFormatException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TraceFile} on its own: a small torch-shaped trace summarises to exact figures (events by class, the other
 * and unusable ones counted apart, the origin at the profiler's span, CUDA told by a top-level field, the device names,
 * the accounting block's numbers by dotted path and its notes, the device work per name); the bundled HTA
 * simple_add trace summarises every event of a known category that has a name and a time; a trace with nothing to
 * summarise says what it does hold, one past the event bound says so, both in one line naming the file; a merged
 * trace read by slot keys each row by its rank's slot and counts events on no slot.
 */
class TraceFileTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    private Path write(String name, String json) throws IOException {
        return Files.writeString(tmp.resolve(name), json);
    }

    private static final String SMALL = """
            {"deviceProperties": [{"id": 0, "name": "NVIDIA H200"}],
             "cuda_runtime_version": 12040,
             "flagtrace": {"records": {"kernel": 3, "dropped": 1}, "lost": 0, "notes": ["a note", 7]},
             "traceEvents": [
              {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": 1, "ts": 100, "dur": 1000},
              {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 110, "dur": 50,
               "args": {"External id": 1}},
              {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 120, "dur": 5,
               "args": {"External id": 1}},
              {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 130, "dur": 20, "args": {"External id": 1}},
              {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 160, "dur": 30, "args": {"External id": 2}},
              {"ph": "X", "cat": "gpu_user_annotation", "name": "step", "pid": 0, "tid": 7, "ts": 130, "dur": 60},
              {"ph": "X", "cat": "cpu_op", "name": "broken", "pid": 1, "tid": 1, "ts": 200, "dur": -3},
              {"ph": "X", "cat": "cpu_op", "pid": 1, "tid": 1, "ts": 210, "dur": 3},
              {"ph": "f", "cat": "ac2g", "name": "flow", "pid": 1, "tid": 1, "ts": 120, "id": 1},
              {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "python"}}
             ]}
            """;

    @Test
    void aSmallTraceSummarisesToExactFigures() throws IOException {
        TraceFile t = TraceFile.read(write("small.json", SMALL));
        assertEquals(4, t.events(), "aten::mm, cudaLaunchKernel and the two gemm kernels");
        assertEquals(2, t.otherEvents(), "the profiler's span and the device annotation");
        assertEquals(2, t.invalidEvents(), "a negative dur, no name");
        assertEquals(100_000, t.originNs(), "the profiler span's start, in ns");
        assertTrue(t.cuda());
        assertEquals(List.of("NVIDIA H200"), t.devices());
        assertEquals(Map.of("records.kernel", 3L, "records.dropped", 1L, "lost", 0L), t.accounting());
        assertEquals(List.of("a note"), t.notes());
        assertEquals(List.of(new DeviceWorkStats.Row("gemm", 2, 50_000, 20_000, 30_000, 25_000, 7_071)), t.deviceWorkStats());
        assertEquals(List.of(), t.collectives());
        assertFalse(t.merged());
        assertEquals(0, t.spilledBytes());
    }

    @Test
    void theBundledSimpleAddTraceSummarisesEveryEventOfAKnownCategory() throws IOException {
        Path trace = Path.of("src/test/resources/hta/simple_add_trace.json.gz");
        JsonNode root;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(trace))) {
            root = JSON.readTree(in);
        }
        long known = 0;
        long device = 0;
        long other = 0;
        for (JsonNode e : root.get("traceEvents")) {
            if (!"X".equals(e.path("ph").asText())) {
                continue;
            }
            EventClass c = EventClass.of(e.hasNonNull("cat") ? e.get("cat").asText() : null,
                    e.hasNonNull("pid") ? e.get("pid").asText() : null);
            if (c == EventClass.OTHER) {
                other++;
            } else if (e.hasNonNull("name") && e.path("ts").isNumber() && e.path("dur").asDouble(0) >= 0) {
                known++;
                device += c == EventClass.DEVICE ? 1 : 0;
            }
        }
        TraceFile t = TraceFile.read(trace);
        assertTrue(known > 100 && device > 0, known + " " + device);
        assertEquals(known, t.events());
        assertEquals(796, t.events(), "the bundled trace holds 796 such events");
        assertEquals(other, t.otherEvents());
        assertEquals(0, t.invalidEvents());
        assertEquals(device, t.deviceWorkStats().stream().mapToLong(DeviceWorkStats.Row::calls).sum());
        assertTrue(t.cuda());
        assertEquals(0, t.spilledBytes());
    }

    @Test
    void aTraceWithNothingToSummariseSaysWhatItHolds() throws IOException {
        String tail = "; the summary reads torch's categories (cpu_op, user_annotation, cuda_runtime, kernel, gpu_memcpy, ... or"
                + " 2021's Operator, Runtime, Kernel, Memcpy, Memset)";
        Path foreign = write("foreign.json", """
                {"traceEvents": [
                 {"ph": "X", "cat": "foo", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1},
                 {"ph": "X", "cat": "foo", "name": "b", "pid": 1, "tid": 1, "ts": 2, "dur": 1},
                 {"ph": "X", "cat": "bar", "name": "c", "pid": 1, "tid": 1, "ts": 3, "dur": 1},
                 {"ph": "X", "cat": "cpu_op", "name": "d", "pid": 1, "tid": 1, "ts": 4, "dur": -1}
                ]}
                """);
        TraceFormatException e = assertThrows(TraceFormatException.class, () -> TraceFile.read(foreign));
        assertEquals(foreign + " holds nothing to summarise: complete events only of categories foo (2), bar (1), cpu_op (1),"
                + " and 1 without a usable name, ts or dur" + tail, e.getMessage());

        // categories taking turns (as runtime calls and kernels do), then a third between them: each counted
        StringBuilder turns = new StringBuilder("{\"traceEvents\": [");
        String[] cats = {"foo", "bar", "foo", "bar", "baz", "foo", "bar", "bar", "baz", "foo"};
        for (int i = 0; i < cats.length; i++) {
            turns.append(i == 0 ? "" : ",").append("{\"ph\": \"X\", \"cat\": \"").append(cats[i])
                    .append("\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": ").append(i).append(", \"dur\": 1}");
        }
        Path taking = write("turns.json", turns.append("]}").toString());
        e = assertThrows(TraceFormatException.class, () -> TraceFile.read(taking));
        assertEquals(taking + " holds nothing to summarise: complete events only of categories foo (4), bar (4), baz (2)" + tail,
                e.getMessage());

        Path instants = write("instants.json", "[{\"ph\": \"i\", \"name\": \"x\", \"pid\": 1, \"tid\": 1, \"ts\": 1}]");
        e = assertThrows(TraceFormatException.class, () -> TraceFile.read(instants));
        assertEquals(instants + " holds nothing to summarise: no complete (\"ph\":\"X\") events at all" + tail, e.getMessage());
    }

    @Test
    void aTracePastTheEventBoundIsRefusedNotTruncated() throws IOException {
        Path small = write("small.json", SMALL);
        assertEquals(4, TraceFile.read(small, 4).events(), "exactly at the bound");
        TraceFormatException e = assertThrows(TraceFormatException.class, () -> TraceFile.read(small, 3));
        assertEquals(small + " holds more than 3 events; summarise a shorter window of it", e.getMessage());
    }

    @Test
    void aMergedTraceReadBySlotKeysEachRowByItsSlot() throws IOException {
        Path merged = write("merged.json", """
                {"traceEvents": [
                 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1001, "tid": 1, "ts": 10, "dur": 5},
                 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 2001, "tid": 1, "ts": 11, "dur": 7},
                 {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 2000, "tid": 7, "ts": 12, "dur": 3},
                 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 5, "tid": 1, "ts": 13, "dur": 1}
                ]}
                """);
        TraceFile t = TraceFile.readBySlot(merged);
        assertEquals(3, t.events());
        assertEquals(1, t.unplacedEvents(), "pid 5 is on no slot");
        assertEquals(List.of(new DeviceWorkStats.Row("gemm", 1, 3_000, 3_000, 3_000, 3_000, 0)), t.deviceWorkStats(),
                "device work by its own name");
        assertEquals("slot 1", t.slotLabel(1), "no merge block: no rank to name");
        String keyed = 1 + "\u001f" + "gemm";
        assertEquals(1, TraceFile.slotOf(keyed));
        assertEquals("gemm", TraceFile.nameOf(keyed));
        assertEquals(4, TraceFile.read(merged).events(), "read plainly, nothing is unplaced");
    }
}
