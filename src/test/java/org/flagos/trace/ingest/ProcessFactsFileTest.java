package org.flagos.trace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.flagos.trace.model.ClockAnchor;
import org.flagos.trace.model.ProcessFacts;
import org.flagos.trace.model.ProcessIdentity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link ProcessFactsFile}: the {@code NAME.process.json} beside a capture read field by field (the bundled rank 0's of
 * the two-rank H200 capture), written and read back unchanged, unknown fields skipped, and every malformed file refused
 * in one line that names it.
 */
class ProcessFactsFileTest {
    @TempDir
    Path dir;

    static final Path RANK0 = Path.of("src/test/resources/captures/h200-ranks/rank0.process.json");

    @Test
    void theBundledRanksFactsAreReadFieldByField() {
        ProcessFacts f = ProcessFactsFile.read(RANK0);
        ProcessIdentity id = f.identity();
        assertEquals(new ProcessIdentity(0, 2, 0, 2, "vm", 781, "fe967290-4a85-42d6-9181-23f60a6b0377"), id);
        assertEquals(List.of(new ClockAnchor("start", 1796179186002415677L, 115412162657L, 1796179186002415984L, 635),
                new ClockAnchor("stop", 1796179186474711634L, 115884458594L, 1796179186474711921L, 603)), f.anchors());
    }

    @Test
    void whatIsWrittenIsReadBackUnchanged() throws Exception {
        ProcessFacts f = ProcessFactsFile.read(RANK0);
        Path copy = dir.resolve("copy.process.json");
        ProcessFactsFile.write(copy, f);
        assertEquals(f, ProcessFactsFile.read(copy));
        assertEquals(f, ProcessFactsFile.parse(ProcessFactsFile.text(f), "journal"));
        assertEquals(Files.readString(RANK0).strip(), ProcessFactsFile.text(f).strip(), "the bundled file is what the writer writes");
        ProcessFacts none = new ProcessFacts(new ProcessIdentity(-1, -1, -1, -1, null, -1, null), List.of());
        assertEquals(none, ProcessFactsFile.parse(ProcessFactsFile.text(none), "journal"), "nothing known reads back as nothing known");
    }

    @Test
    void unknownFieldsAreSkipped() {
        ProcessFacts f = ProcessFactsFile.parse("{\"future\":{\"a\":[1,{\"b\":2}]},\"rank\":3,\"clock_anchors\":[{\"at\":\"start\","
                + "\"realtime_ns\":1,\"monotonic_ns\":2,\"trace_ns\":3,\"bound_ns\":0,\"extra\":[7]}],\"more\":null}", "x");
        assertEquals(3, f.identity().rank());
        assertEquals(List.of(new ClockAnchor("start", 1, 2, 3, 0)), f.anchors());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "[]|x: process facts are one JSON object",
        "{\"rank\":-1}|x: rank must be 0 or more, not -1",
        "{\"world_size\":2147483648}|x: world_size must be 0 or more, not 2147483648",
        "{\"local_rank\":1.5}|x: local_rank must be an integer",
        "{\"host\":7}|x: host must be a string",
        "{\"clock_anchors\":{}}|x: clock_anchors must be an array",
        "{\"clock_anchors\":[1]}|x: clock_anchors holds something other than objects",
        "{\"clock_anchors\":[{\"at\":\"start\",\"realtime_ns\":1,\"monotonic_ns\":2,\"trace_ns\":3}]}|x: a clock anchor needs at, realtime_ns, monotonic_ns, trace_ns and bound_ns (0 or more)",
        "{\"clock_anchors\":[{\"at\":\"start\",\"realtime_ns\":1,\"monotonic_ns\":2,\"trace_ns\":3,\"bound_ns\":-1}]}|x: a clock anchor needs at, realtime_ns, monotonic_ns, trace_ns and bound_ns (0 or more)",
        "{\"rank\":1,|x: not process facts (invalid JSON: Unexpected end-of-input within/between Object entries)",
    })
    void malformedFactsAreRefusedInOneLine(String text, String message) {
        CaptureFormatException e = assertThrows(CaptureFormatException.class, () -> ProcessFactsFile.parse(text, "x"));
        assertEquals(message, e.getMessage());
    }

    @Test
    void longHostsAndTooManyAnchorsAreRefused() {
        CaptureFormatException host = assertThrows(CaptureFormatException.class,
                () -> ProcessFactsFile.parse("{\"host\":\"" + "h".repeat(256) + "\"}", "x"));
        assertEquals("x: host is longer than 255 characters", host.getMessage());
        ProcessFactsFile.parse("{\"host\":\"" + "h".repeat(255) + "\"}", "x");
        String anchor = "{\"at\":\"a\",\"realtime_ns\":1,\"monotonic_ns\":2,\"trace_ns\":3,\"bound_ns\":0}";
        String many = "{\"clock_anchors\":[" + String.join(",", java.util.Collections.nCopies(ProcessFactsFile.MAX_ANCHORS, anchor));
        assertEquals(ProcessFactsFile.MAX_ANCHORS, ProcessFactsFile.parse(many + "]}", "x").anchors().size());
        CaptureFormatException more = assertThrows(CaptureFormatException.class, () -> ProcessFactsFile.parse(many + "," + anchor + "]}", "x"));
        assertEquals("x: more than 1024 clock anchors", more.getMessage());
    }

    /** Found by this test: a number past 64 bits said Jackson's "Numeric value (...) out of range of long (...)". */
    @Test
    void aNumberPastALongIsRefusedInFlagtracesWords() {
        CaptureFormatException e = assertThrows(CaptureFormatException.class,
                () -> ProcessFactsFile.parse("{\"pid\":18446744073709551616}", "x"));
        assertEquals("x: pid must be an integer within 64 bits", e.getMessage());
        CaptureFormatException a = assertThrows(CaptureFormatException.class, () -> ProcessFactsFile.parse("{\"clock_anchors\":[{\"at\":\"s\","
                + "\"realtime_ns\":-9223372036854775809,\"monotonic_ns\":2,\"trace_ns\":3,\"bound_ns\":0}]}", "x"));
        assertEquals("x: realtime_ns must be an integer within 64 bits", a.getMessage());
    }

    @Test
    void aFileThatIsNotAFileIsRefusedByItsPath() throws Exception {
        CaptureFormatException missing = assertThrows(CaptureFormatException.class, () -> ProcessFactsFile.read(dir.resolve("none.json")));
        assertEquals(true, missing.getMessage().startsWith(dir.resolve("none.json").toString()), missing.getMessage());
        CaptureFormatException directory = assertThrows(CaptureFormatException.class, () -> ProcessFactsFile.read(dir));
        assertEquals(true, directory.getMessage().startsWith(dir.toString()), directory.getMessage());
    }
}
