package org.flagos.trace.encoders;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.OpArgs;
import org.flagos.trace.model.OpStack;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.stages.CaptureAccounting;
import org.flagos.trace.stages.ExternalCorrelationJoin;
import org.flagos.trace.stages.NameStage;
import org.flagos.trace.stages.StagesBeforeWalk;
import org.flagos.trace.stages.TraceHeader;
import org.flagos.trace.stages.TraceSink;
import org.flagos.trace.stages.TraceWalk;
import org.flagos.trace.testing.UnitTrace;
import org.junit.jupiter.api.Test;

/**
 * Golden output of an op's args and stack: the exact {@code cpu_op} event of the JSON trace, and the
 * debug annotations of its {@code .pftrace} slice read back with a protobuf reader written here.
 * An op without args keeps torch's four empty input lists in both.
 */
class OpArgsGoldenTest {
    private static final long BASE = UnitTrace.BASE;
    private static final OpArgs ARGS = OpArgs.builder().inputDims(new long[] {256, 256}, new long[] {256, 256})
            .inputTypes("float", "float").add("flops", 33_554_432L).add("alpha", 0.5).add("layout", "row").build();
    private static final OpStack STACK = OpStack.of(List.of("app.Model.forward(Model.java:42)", "app.Main.main(Main.java:7)"));

    private byte[] trace(boolean perfetto) throws Exception {
        NameTable names = new NameTable();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TraceHeader header = UnitTrace.header(Map.of());
        TraceSink sink = perfetto ? new PerfettoProtoSink(out, names, header, kind -> "cuda_runtime") : new ChromeJsonSink(out, names, header);
        NameStage stage = new NameStage(UnitTrace.LAUNCH_NAMES, names);
        TraceWalk walk = new TraceWalk(sink, names, header, new CaptureAccounting(new DecodeStats()),
                StagesBeforeWalk.of(stage, new ExternalCorrelationJoin(), UnitTrace.window()));
        TraceRecord[] slots = {op("aten::mm", 0, 2_000, 3_500, ARGS, STACK), op("plain", 1, 4_000, 4_100, null, null),
            new TraceRecord()};
        slots[2].clear();
        slots[2].type = RecordType.END_OF_CAPTURE;
        for (int i = 0; i < slots.length; i++) {
            stage.onEvent(slots[i], i, true);
            walk.onEvent(slots[i], i, true);
        }
        walk.awaitFinished();
        assertEquals(null, walk.failure());
        return out.toByteArray();
    }

    private static TraceRecord op(String name, long id, long start, long end, OpArgs args, OpStack stack) {
        TraceRecord r = new TraceRecord();
        r.clear();
        r.type = RecordType.HOST_OP;
        r.opName = name;
        r.externalId(id);
        r.threadId = 77;
        r.startNs = BASE + start;
        r.endNs = BASE + end;
        r.opArgs = args;
        r.opStack = stack;
        return r;
    }

    @Test
    void theJsonCpuOpCarriesTheArgsInTorchsPlaces() throws Exception {
        String json = new String(trace(false), StandardCharsets.UTF_8);
        assertTrue(json.contains("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":4242,\"tid\":77,\"ts\":2.000,"
                + "\"dur\":1.500,\"args\":{\"External id\":0,\"Record function id\":0,\"Ev Idx\":0,"
                + "\"Input Dims\":[[256,256],[256,256]],\"Input Strides\":[],\"Input type\":[\"float\",\"float\"],"
                + "\"Concrete Inputs\":[],\"flops\":33554432,\"alpha\":0.5,\"layout\":\"row\","
                + "\"Call stack\":\"app.Model.forward(Model.java:42);app.Main.main(Main.java:7)\",\"thread\":77}}"), json);
        assertTrue(json.contains("\"name\":\"plain\",\"pid\":4242,\"tid\":77,\"ts\":4.000,\"dur\":0.100,\"args\":{\"External id\":1,"
                + "\"Record function id\":0,\"Ev Idx\":1,\"Input Dims\":[],\"Input Strides\":[],\"Input type\":[],"
                + "\"Concrete Inputs\":[],\"thread\":77}}"), json);
    }

    @Test
    void thePerfettoSliceCarriesTheSameArgs() throws Exception {
        List<Map<String, String>> ops = Proto.cpuOpArgs(trace(true));
        assertEquals(2, ops.size());
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("External id", "int 0");
        expected.put("Record function id", "int 0");
        expected.put("Ev Idx", "int 0");
        expected.put("Input Dims", "json [[256,256],[256,256]]");
        expected.put("Input Strides", "json []");
        expected.put("Input type", "json [\"float\",\"float\"]");
        expected.put("Concrete Inputs", "json []");
        expected.put("flops", "int 33554432");
        expected.put("alpha", "double 0.5");
        expected.put("layout", "string row");
        expected.put("Call stack", "string app.Model.forward(Model.java:42);app.Main.main(Main.java:7)");
        expected.put("thread", "int 77");
        assertEquals(expected, ops.get(0));
        assertEquals("{External id=int 1, Record function id=int 0, Ev Idx=int 1, Input Dims=json [], Input Strides=json [],"
                + " Input type=json [], Concrete Inputs=json [], thread=int 77}", ops.get(1).toString());
    }

    /** Just enough protobuf to read the cpu_op slices' debug annotations, keys interned or by name. */
    private static final class Proto {
        private final byte[] b;
        private int at;
        private final int end;

        Proto(byte[] b, int from, int to) {
            this.b = b;
            this.at = from;
            this.end = to;
        }

        long varint() {
            long v = 0;
            for (int shift = 0; ; shift += 7) {
                byte x = b[at++];
                v |= (long) (x & 0x7f) << shift;
                if (x >= 0) {
                    return v;
                }
            }
        }

        Proto message() {
            int n = (int) varint();
            Proto m = new Proto(b, at, at + n);
            at += n;
            return m;
        }

        String text() {
            int n = (int) varint();
            String s = new String(b, at, n, StandardCharsets.UTF_8);
            at += n;
            return s;
        }

        void skip(int wire) {
            switch (wire) {
                case 0 -> varint();
                case 1 -> at += 8;
                case 2 -> {
                    int n = (int) varint(); // before the add: `at += varint()` would add to the old position
                    at += n;
                }
                case 5 -> at += 4;
                default -> throw new AssertionError("wire type " + wire);
            }
        }

        boolean done() {
            return at >= end;
        }

        static List<Map<String, String>> cpuOpArgs(byte[] trace) {
            Map<Long, String> keys = new LinkedHashMap<>();
            Map<Long, String> cats = new LinkedHashMap<>();
            List<Map<String, String>> ops = new java.util.ArrayList<>();
            Proto r = new Proto(trace, 0, trace.length);
            while (!r.done()) {
                r.varint();
                Proto p = r.message();
                while (!p.done()) {
                    long tag = p.varint();
                    int field = (int) (tag >>> 3);
                    if (field == 12) { // interned data
                        Proto i = p.message();
                        while (!i.done()) {
                            int kind = (int) (i.varint() >>> 3);
                            Proto entry = i.message();
                            entry.varint();
                            long iid = entry.varint();
                            entry.varint();
                            String name = entry.text();
                            if (kind == 3) {
                                keys.put(iid, name);
                            } else if (kind == 1) {
                                cats.put(iid, name);
                            }
                        }
                    } else if (field == 11) { // track event
                        Proto e = p.message();
                        Map<String, String> args = new LinkedHashMap<>();
                        boolean cpuOp = false;
                        while (!e.done()) {
                            long t = e.varint();
                            if (t == (3 << 3)) {
                                cpuOp = "cpu_op".equals(cats.get(e.varint()));
                            } else if (t == ((4 << 3) | 2)) {
                                Proto a = e.message();
                                String key = null;
                                String value = null;
                                while (!a.done()) {
                                    long at = a.varint();
                                    switch ((int) (at >>> 3)) {
                                        case 1 -> key = keys.get(a.varint());
                                        case 10 -> key = a.text();
                                        case 3, 4 -> value = "int " + a.varint();
                                        case 5 -> {
                                            long bits = 0;
                                            for (int k = 0; k < 8; k++) {
                                                bits |= (a.b[a.at++] & 0xffL) << (8 * k);
                                            }
                                            value = "double " + Double.longBitsToDouble(bits);
                                        }
                                        case 6 -> value = "string " + a.text();
                                        case 9 -> value = "json " + a.text();
                                        default -> a.skip((int) (at & 7));
                                    }
                                }
                                args.put(key, value);
                            } else {
                                e.skip((int) (t & 7));
                            }
                        }
                        if (cpuOp) {
                            ops.add(args);
                        }
                    } else {
                        p.skip((int) (tag & 7));
                    }
                }
            }
            return ops;
        }
    }
}
