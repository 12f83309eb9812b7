package org.flagos.trace.tracefile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The reader's rules for one event and for the blocks, one by one. */
class TraceReaderTest {
    @TempDir
    Path dir;

    private record Read(List<long[]> numbers, List<String> texts, TraceBlocks blocks) {
    }

    /** Reads {@code json}, keeping per event its pid, tid, ts, dur, id, External id, correlation and its ph, pid text, tid text, name. */
    private Read read(String json, TraceReader.Options options) throws Exception {
        Path file = Files.writeString(dir.resolve("t.json"), json);
        List<long[]> numbers = new ArrayList<>();
        List<String> texts = new ArrayList<>();
        TraceBlocks blocks = TraceReader.read(file, "not a trace", options, e -> {
            numbers.add(new long[] {e.pidNumber(), e.tidNumber(), e.tsNs(), e.durNs(), e.id(), e.externalId(), e.correlation(),
                    e.unusable() ? 1 : 0});
            texts.add(e.ph() + "|" + e.pid() + "|" + e.tid() + "|" + e.name());
        });
        return new Read(numbers, texts, blocks);
    }

    @Test
    void pidsIdsAndTimesByOneRule() throws Exception {
        Read r = read("[{\"ph\":\"X\",\"pid\":\"CPU functions\",\"tid\":18446744073709551621,\"ts\":\"1\",\"dur\":-1,"
                + "\"id\":\"17\",\"args\":{\"External id\":18446744073709551615,\"correlation\":36893488147419103232}},"
                + "{\"ph\":7,\"name\":{\"a\":1},\"pid\":-3,\"tid\":1.5,\"ts\":1.5e3,\"dur\":0.0005,\"id\":2.5}]", TraceReader.Options.FIELDS);
        long[] a = r.numbers().get(0);
        assertEquals(TraceEvent.NONE, a[0], "a string that holds no integer is no pid number");
        assertEquals(TraceEvent.NONE, a[1], "a tid past 64 bits is none, not its low bits");
        assertEquals(TraceEvent.NONE, a[2], "a string ts is no time");
        assertEquals(TraceEvent.NONE, a[3], "a negative dur is no time");
        assertEquals(1, a[7], "either makes the event unusable");
        assertEquals(17, a[4], "a string holding an id");
        assertEquals(-1, a[5], "an unsigned 64-bit id keeps its low 64 bits");
        assertEquals(TraceEvent.NONE, a[6], "past 64 bits: none");
        assertEquals("X|CPU functions|null|null", r.texts().get(0));
        long[] b = r.numbers().get(1);
        assertEquals(-3, b[0]);
        assertEquals(TraceEvent.NONE, b[1], "a fraction is no tid");
        assertEquals(1_500_000, b[2], "1.5e3 µs exactly");
        assertEquals(0, b[3], "half a nanosecond rounds to even");
        assertEquals(TraceEvent.NONE, b[4]);
        assertEquals(0, b[7]);
        assertEquals("null|-3|null|null", r.texts().get(1), "a ph or name that is no string is none");
        assertTrue(r.blocks().bareArray());
    }

    @Test
    void blocksBeforeOrAfterTheEvents() throws Exception {
        Read r = read("{\"flagtrace_process\":{\"rank\":3,\"host\":\"h\"},\"traceEvents\":[{\"ph\":\"X\"}],\"cuda_version\":1,"
                + "\"flagtrace\":{\"events\":1,\"host_clock\":{\"bound_ns\":7},\"notes\":[\"n\",5],\"clock_anchors\":[{\"at\":\"start\","
                + "\"realtime_ns\":1,\"monotonic_ns\":2,\"trace_ns\":3,\"bound_ns\":4}]},\"deviceProperties\":[{\"id\":0},{\"name\":\"G\"}]}",
                TraceReader.Options.FACTS);
        TraceBlocks b = r.blocks();
        assertEquals(3, b.rank());
        assertEquals("h", b.host());
        assertTrue(b.cuda());
        assertTrue(b.flagtrace());
        assertEquals(7L, b.accounting().get("host_clock.bound_ns"));
        assertEquals(List.of("n"), b.notes());
        assertEquals(3, b.anchors().get(0).traceNs());
        assertEquals(List.of("device 0", "G"), b.devices(), "a device without a name is named by its place");
        assertEquals(2, b.deviceObjects().size());
        assertFalse(b.merged());
        assertEquals(-1, TraceBlocks.slotOf(999));
        assertEquals(0, TraceBlocks.slotOf(1999));
        assertEquals(-1, TraceBlocks.slotOf(65_537_000L));
    }

    @Test
    void aCopyKeepsEveryTokenAsRead() throws Exception {
        Path file = Files.writeString(dir.resolve("t.json"), "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1.50,\"args\":{\"a\":[1,{\"b\":null}]}}]}");
        List<String> tokens = new ArrayList<>();
        TraceReader.read(file, "x", TraceReader.Options.COPY, e -> {
            for (int i = 0; i < e.tokens().size(); i++) {
                tokens.add(e.tokens().token(i) + (e.tokens().text(i) == null ? "" : "=" + e.tokens().text(i)));
            }
        });
        assertEquals(List.of("START_OBJECT", "FIELD_NAME=ph", "VALUE_STRING=X", "FIELD_NAME=ts", "VALUE_NUMBER_FLOAT=1.50",
                "FIELD_NAME=args", "START_OBJECT", "FIELD_NAME=a", "START_ARRAY", "VALUE_NUMBER_INT=1", "START_OBJECT", "FIELD_NAME=b",
                "VALUE_NULL", "END_OBJECT", "END_ARRAY", "END_OBJECT", "END_OBJECT"), tokens);
    }

    /** 1e9999999 µs took 26-46 s and 430 MB to be written out digit by digit; now it is refused at once. */
    @Test
    void aHugeExponentIsRefusedAtOnce() throws Exception {
        Path file = Files.writeString(dir.resolve("t.json"), "[{\"ph\":\"X\",\"ts\":1e999999999}]");
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> assertThrows(TraceFormatException.class,
                () -> TraceReader.read(file, "x", TraceReader.Options.FIELDS, e -> { })));
        assertEquals(0, Micros.toNanos("1e-999999999"));
        assertThrows(ArithmeticException.class, () -> Micros.toNanos("1e9999999"));
    }

    @Test
    void twoEventArraysAreNoTrace() throws Exception {
        Path file = Files.writeString(dir.resolve("t.json"), "{\"traceEvents\":[],\"traceEvents\":[]}");
        assertEquals(file + " is not a trace: it has two traceEvents arrays",
                assertThrows(TraceFormatException.class, () -> TraceReader.read(file, "x", TraceReader.Options.FIELDS, e -> { })).getMessage());
        Path fifo = dir.resolve("d");
        Files.createDirectory(fifo);
        assertEquals(fifo + " is a directory, x",
                assertThrows(TraceFormatException.class, () -> TraceReader.read(fifo, "x", TraceReader.Options.FIELDS, e -> { })).getMessage());
        assertNull(null);
    }
}
