package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.flagos.trace.testing.TraceJson;
import org.flagos.trace.tracefile.TraceFormatException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RankTimes} on the two-rank H200 merge (issue 17's run): each rank's step times, spans and device parts are
 * the truth the run's ranks report recorded ({@code h200-ranks.ranks.json}), and the parts add up to the span; on
 * small merged traces, the rules of reading one: a step seen twice spans both, a step op whose number is no number is
 * no step, events without a time or on a pid of no slot are counted out, a slot only the block names is kept, and a
 * trace that is not a merge is refused in words.
 */
class RankTimesTest {
    private static final Path MERGED = Path.of("src/test/resources/captures/h200-ranks/h200-ranks.merged.json.gz");
    private static final Path TRUTH = Path.of("src/test/resources/captures/h200-ranks/h200-ranks.ranks.json");

    private static long ns(JsonNode us) {
        return Math.round(us.doubleValue() * 1000);
    }

    @Test
    void theH200RanksAreTheRecordedTruthAndTheirPartsAddUp() throws Exception {
        RankTimes times = RankTimes.read(MERGED);
        JsonNode truth = TraceJson.MAPPER.readTree(TRUTH.toFile()).get("ranks");
        assertEquals(truth.size(), times.ranks().size());
        assertEquals(0, times.invalidEvents());
        assertEquals(0, times.unplacedEvents());
        assertTrue(times.hasSteps());
        for (int i = 0; i < truth.size(); i++) {
            JsonNode t = truth.get(i);
            RankTimes.Rank r = times.ranks().get(i);
            assertEquals(t.get("rank").textValue(), r.label());
            assertEquals(t.get("slot").intValue(), r.slot());
            assertEquals(i, r.rank());
            assertEquals("vm", r.host());
            Map<Long, Long> steps = new TreeMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = t.get("step_us").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> s = it.next();
                steps.put(Long.parseLong(s.getKey().substring(RankTimes.STEP_PREFIX.length())), ns(s.getValue()));
            }
            assertEquals(steps, r.stepTimes(), r.label());
            assertEquals(ns(t.get("whole_us")), r.wholeNs(), r.label());
            assertEquals(ns(t.get("device_span_us")), r.deviceSpanNs(), r.label());
            assertEquals(ns(t.get("computation_us")), r.computationNs(), r.label());
            assertEquals(ns(t.get("communication_us")), r.communicationNs(), r.label());
            assertEquals(ns(t.get("memory_us")), r.memoryNs(), r.label());
            assertEquals(ns(t.get("idle_us")), r.idleNs(), r.label());
            assertEquals(t.get("device_events").longValue(), r.deviceEvents(), r.label());
            assertEquals(r.deviceSpanNs(), r.computationNs() + r.communicationNs() + r.memoryNs() + r.idleNs(), r.label());
        }
        assertEquals(16, times.ranks().get(0).deviceEvents() + times.ranks().get(1).deviceEvents() - 48,
                "48 kernels and 16 copies in the merge, 32 a rank");
    }

    private static Path merged(Path dir, String events, String inputs) throws Exception {
        return Files.writeString(dir.resolve("m.json"), "{\"traceEvents\":[" + events
                + "],\"flagtrace_merge\":{\"pid_stride\":1000,\"inputs\":[" + inputs + "]}}");
    }

    private static String op(String name, int pid, long ts, long dur) {
        return "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" + name + "\",\"pid\":" + pid + ",\"tid\":1,\"ts\":" + ts + ",\"dur\":" + dur + "}";
    }

    @Test
    void theRulesOfReadingAMergedTrace(@TempDir Path dir) throws Exception {
        String events = String.join(",",
                op("ProfilerStep#2", 1000, 10, 5), // one step on two threads: it spans both
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"ProfilerStep#2\",\"pid\":1000,\"tid\":2,\"ts\":12,\"dur\":8}",
                op("ProfilerStep#next", 1000, 30, 1), // no number: no step
                op("ProfilerStep#7", 2000, 0, 4),
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"no time\",\"pid\":1000,\"tid\":1}",
                op("on no slot", 999, 0, 1),
                "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":2001,\"tid\":7,\"ts\":2,\"dur\":1}",
                "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"name\":\"mark\",\"pid\":1000,\"tid\":1,\"ts\":3}");
        RankTimes times = RankTimes.read(merged(dir, events,
                "{\"slot\":0,\"rank\":3,\"host\":\"a\"},{\"slot\":1},{\"slot\":2,\"rank\":9,\"host\":\"c\"},{\"slot\":3}"));
        assertEquals(1, times.invalidEvents(), "the op without a time");
        assertEquals(1, times.unplacedEvents(), "pid 999 is below the first slot's");
        List<RankTimes.Rank> ranks = times.ranks();
        assertEquals(List.of("rank 3", "slot 1", "rank 9"), ranks.stream().map(RankTimes.Rank::label).toList(),
                "slot 3 has neither events nor a rank: left out; slot 2 is named by the block alone");
        assertEquals(Map.of(2L, 10_000L), ranks.get(0).stepTimes(), "ProfilerStep#2 from 10us to 20us; #next is no step");
        assertEquals(21_000, ranks.get(0).wholeNs(), "10us to 31us: the op that is no step still counts toward the rank's span");
        assertEquals(0, ranks.get(0).deviceSpanNs());
        assertNull(ranks.get(1).host());
        assertEquals(Map.of(7L, 4_000L), ranks.get(1).stepTimes());
        assertEquals(1_000, ranks.get(1).computationNs());
        assertEquals(0, ranks.get(2).wholeNs());
        assertTrue(ranks.get(2).stepTimes().isEmpty());
    }

    @Test
    void aTraceThatIsNoMergeIsRefusedInWords(@TempDir Path dir) throws Exception {
        Path single = Files.writeString(dir.resolve("one.json"), "{\"traceEvents\":[" + op("ProfilerStep#1", 1, 0, 1) + "]}");
        assertEquals(single + " is not a merged trace (no flagtrace_merge block): --ranks reads what flagtrace merge writes",
                assertThrows(TraceFormatException.class, () -> RankTimes.read(single)).getMessage());
        Path noSteps = merged(dir, op("aten::mm", 1000, 0, 1), "{\"slot\":0,\"rank\":0}");
        assertFalse(RankTimes.read(noSteps).hasSteps());
    }
}
