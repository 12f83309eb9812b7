package org.flagos.trace.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.model.ClockAnchor;
import org.flagos.trace.tracefile.TraceFormatException;
import org.flagos.trace.tracefile.TraceLimits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RankAlignment}: the bundled two-rank H200 captures (one host, one boot) replayed and aligned as their own
 * anchors say, worked out by hand from {@code rank0.process.json} and {@code rank1.process.json}: 33 ns exact on the
 * monotonic clock, 53 ns within 1,231 ns on the real-time one; drift between start and stop added to the bound; the
 * refusals (monotonic across boots, an offset past ±2^62 ns, anchors an hour apart) with their words.
 */
class RankAlignmentTest {
    private static final Path RANKS = Path.of("src/test/resources/captures/h200-ranks");
    private static final String BOOT = "fe967290-4a85-42d6-9181-23f60a6b0377";

    @TempDir
    Path dir;

    private Path replayed(String rank) throws Exception {
        Path trace = dir.resolve(rank + ".json");
        try (var out = Files.newOutputStream(trace)) {
            CaptureReplay.run(CaptureReplay.request(RANKS.resolve(rank + ".fltrbuf"), RANKS.resolve(rank + ".ops.jsonl"), null, List.of(),
                    Map.of()), out);
        }
        return trace;
    }

    @Test
    void theBundledRanksAlignAsTheirAnchorsSay() throws Exception {
        TraceFacts rank0 = TraceFacts.read(replayed("rank0"));
        TraceFacts rank1 = TraceFacts.read(replayed("rank1"));
        assertEquals(BOOT, rank1.identity().bootId());
        assertEquals(2, rank1.anchors().size());
        // start: (1796179186002415984 - 115412162657) - (1796179185885603139 - 115295349845) = 33; at stop also 33
        assertEquals(new RankAlignment(33, 0, "monotonic"), RankAlignment.of(rank0, rank1, ClockChoice.AUTO), "one boot: exact");
        assertEquals(new RankAlignment(33, 0, "monotonic"), RankAlignment.of(rank0, rank1, ClockChoice.MONOTONIC));
        // real time: 53 at start, 70 at stop (drift 17, within the stop anchors' 603 + 579); the start anchors' 635 + 596
        assertEquals(new RankAlignment(53, 1231, "realtime"), RankAlignment.of(rank0, rank1, ClockChoice.REALTIME));
        assertEquals(new RankAlignment(-33, 0, "monotonic"), RankAlignment.of(rank1, rank0, ClockChoice.AUTO), "the other way round");
        assertEquals(new RankAlignment(0, 0, "monotonic"), RankAlignment.of(rank0, rank0, ClockChoice.AUTO));
    }

    /** A trace of one op with a process block (boot id, or none) and the anchors given. */
    private TraceFacts trace(String name, String boot, String anchors) throws Exception {
        String process = "{\"rank\":0,\"host\":\"h\",\"pid\":1" + (boot == null ? "" : ",\"boot_id\":\"" + boot + "\"") + "}";
        return TraceFacts.read(Files.writeString(dir.resolve(name + ".json"), "{\"flagtrace_process\":" + process
                + ",\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}]"
                + ",\"flagtrace\":{\"clock_anchors\":[" + anchors + "]}}"));
    }

    private static String anchor(String at, long realtime, long monotonic, long trace, long bound) {
        return "{\"at\":\"" + at + "\",\"realtime_ns\":" + realtime + ",\"monotonic_ns\":" + monotonic + ",\"trace_ns\":" + trace
                + ",\"bound_ns\":" + bound + "}";
    }

    @Test
    void driftBetweenStartAndStopWidensTheBound() throws Exception {
        TraceFacts ref = trace("ref", "b", anchor("start", 1000, 100, 5000, 10) + "," + anchor("stop", 2000, 1100, 6000, 20));
        // monotonic: 4900 - 4850 = 50 at start; at stop 4900 - 4830 = 70: drift 20 is the bound
        TraceFacts other = trace("other", "b", anchor("start", 1000, 150, 5000, 30) + "," + anchor("stop", 2000, 1170, 6000, 40));
        assertEquals(new RankAlignment(50, 20, "monotonic"), RankAlignment.of(ref, other, ClockChoice.AUTO));
        // real time: 4000 - 4000 = 0 at both ends; bound 10 + 30, no drift
        assertEquals(new RankAlignment(0, 40, "realtime"), RankAlignment.of(ref, other, ClockChoice.REALTIME));
        // real time with 500 ns of drift: what the stop anchors' 20 + 40 do not explain is added
        TraceFacts drifting = trace("drifting", "c", anchor("stop", 2500, 1170, 6000, 40) + "," + anchor("start", 1000, 150, 5000, 30));
        assertEquals(new RankAlignment(0, 40 + 440, "realtime"), RankAlignment.of(ref, drifting, ClockChoice.AUTO),
                "another boot: real time; the start anchor found though listed second");
        TraceFacts startOnly = trace("start", "b", anchor("start", 1000, 150, 5000, 30));
        assertEquals(new RankAlignment(50, 0, "monotonic"), RankAlignment.of(ref, startOnly, ClockChoice.AUTO), "no stop: no drift");
    }

    @Test
    void startAndStopAnchorsAreFoundByName() {
        ClockAnchor a = new ClockAnchor("first", 1, 2, 3, 0);
        ClockAnchor stop = new ClockAnchor("stop", 4, 5, 6, 0);
        ClockAnchor start = new ClockAnchor("start", 7, 8, 9, 0);
        assertEquals(start, RankAlignment.start(List.of(a, stop, start)));
        assertEquals(a, RankAlignment.start(List.of(a, stop)), "no start anchor: the first");
        assertEquals(stop, RankAlignment.stop(List.of(a, start, stop)));
        assertNull(RankAlignment.stop(List.of(a, start)));
        assertEquals(new RankAlignment(0, 0, "reference"), RankAlignment.REFERENCE);
        assertEquals(new RankAlignment(0, -1, "assumed"), RankAlignment.ASSUMED);
    }

    @Test
    void refusals() throws Exception {
        TraceFacts ref = trace("ref", "b", anchor("start", 1000, 100, 5000, 10));
        TraceFacts otherBoot = trace("otherboot", "z", anchor("start", 1000, 100, 5000, 10));
        TraceFacts noBoot = trace("noboot", null, anchor("start", 1000, 100, 5000, 10));
        assertEquals(dir.resolve("otherboot.json") + " was not captured on the reference's host and boot (its boot_id differs):"
                + " --clock monotonic cannot align it; use --clock auto",
                assertThrows(TraceFormatException.class, () -> RankAlignment.of(ref, otherBoot, ClockChoice.MONOTONIC)).getMessage());
        assertEquals(dir.resolve("noboot.json") + " was not captured on the reference's host and boot (its boot_id is not known):"
                + " --clock monotonic cannot align it; use --clock auto",
                assertThrows(TraceFormatException.class, () -> RankAlignment.of(ref, noBoot, ClockChoice.MONOTONIC)).getMessage());
        assertEquals(new RankAlignment(0, 20, "realtime"), RankAlignment.of(ref, noBoot, ClockChoice.AUTO), "auto: real time");

        long max = TraceLimits.MAX_TIME_NS;
        TraceFacts far = trace("far", "b", anchor("start", 1000, -max + 10000, max, 10));
        assertEquals(dir.resolve("far.json") + ": its clock anchors put it more than " + max + " ns from the reference's clock:"
                + " not a clock of the same time",
                assertThrows(TraceFormatException.class, () -> RankAlignment.of(ref, far, ClockChoice.AUTO)).getMessage());
        TraceFacts justIn = trace("justin", "b", anchor("start", 1000, -4899, max, 10));
        assertEquals(1 - max, RankAlignment.of(ref, justIn, ClockChoice.AUTO).offsetNs(), "2^62 - 1 ns is still a clock");
        TraceFacts edge = trace("edge", "b", anchor("start", 1000, -4900, max, 10));
        assertThrows(TraceFormatException.class, () -> RankAlignment.of(ref, edge, ClockChoice.AUTO), "2^62 ns is not");
        // readings at ±2^62 whose differences pass a long: refused, not wrapped
        TraceFacts refEdge = trace("refedge", "b", anchor("start", 0, -max, max, 0));
        TraceFacts otherEdge = trace("otheredge", "b", anchor("start", 0, max, -max, 0));
        assertEquals(dir.resolve("otheredge.json") + ": its clock anchors put it more than " + max + " ns from the reference's clock:"
                + " not a clock of the same time",
                assertThrows(TraceFormatException.class, () -> RankAlignment.of(refEdge, otherEdge, ClockChoice.AUTO)).getMessage());

        long hour = TraceLimits.MAX_CLOCK_BOUND_NS;
        TraceFacts ref2 = trace("ref2", "b", anchor("start", 1000, 100, 5000, 10) + "," + anchor("stop", 2000, 1100, 6000, 10));
        TraceFacts hourOff = trace("houroff", "b", anchor("start", 1000, 100, 5000, 10) + "," + anchor("stop", 2000, 1100 - hour - 1, 6000, 10));
        assertEquals(dir.resolve("houroff.json") + ": its clock anchors at start and at stop disagree with the reference's by " + (hour + 1)
                + " ns, more than an hour: not the same clock",
                assertThrows(TraceFormatException.class, () -> RankAlignment.of(ref2, hourOff, ClockChoice.AUTO)).getMessage());
        TraceFacts anHour = trace("anhour", "b", anchor("start", 1000, 100, 5000, 10) + "," + anchor("stop", 2000, 1100 - hour, 6000, 10));
        assertEquals(new RankAlignment(0, hour, "monotonic"), RankAlignment.of(ref2, anHour, ClockChoice.AUTO), "an hour exactly is taken");
    }
}
