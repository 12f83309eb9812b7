package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.flagos.trace.encoders.EventRows;
import org.flagos.trace.encoders.EventTable;
import org.flagos.trace.testing.TraceJson;
import org.flagos.trace.tracefile.TraceFormatException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TraceTables}: torch's own H200 trace becomes one row per timed event of it in reading order, metadata left
 * out and counted, bytes only on copies and sets (as their args say), a flow id only on arrows; the two-rank H200
 * merge names its slots' ranks, hosts and original pids; and the combinations a table cannot hold (a merge beside
 * another input, a rank given to a merge or against the trace's own) are refused in words.
 */
class TraceTablesTest {
    private static final Path MERGED = Path.of("src/test/resources/captures/h200-ranks/h200-ranks.merged.json.gz");

    /** Records what the reader hands the table. */
    private static final class Recorded implements EventRows {
        final List<String> calls = new ArrayList<>();
        final List<long[]> rows = new ArrayList<>(); // bytes, flowId, fromDevice
        final List<String> phases = new ArrayList<>();

        @Override
        public void source(int source, String name, long baseNs, long pidStride) {
            calls.add("source " + source + " " + name + " " + baseNs + " " + pidStride);
        }

        @Override
        public void slot(int slot, Integer rank, String host) {
            calls.add("slot " + slot + " " + rank + " " + host);
        }

        @Override
        public void pid(int slot, long tracePid, long originalPid) {
            calls.add("pid " + slot + " " + tracePid + " " + (originalPid == EventTable.NONE ? "none" : originalPid));
        }

        @Override
        public void add(EventTable.Row r) {
            rows.add(new long[] {r.bytes, r.flowId, r.fromDevice});
            phases.add(r.ph + " " + r.cat + " " + r.name);
        }
    }

    @Test
    void torchsOwnTraceIsOneRowPerTimedEvent() throws Exception {
        Path trace = TorchKeyAveragesTest.resource("torch_trace.json");
        JsonNode json = TraceJson.MAPPER.readTree(trace.toFile());
        List<JsonNode> timed = new ArrayList<>();
        json.get("traceEvents").forEach(e -> {
            if (!e.path("ph").asText().equals("M")) {
                timed.add(e);
            }
        });
        Recorded table = new Recorded();
        TraceTables tables = new TraceTables(table);
        tables.read(trace);
        assertEquals(58, tables.metadataLeftOut());
        assertEquals(0, tables.untimedLeftOut());
        assertEquals(205, tables.rows());
        assertEquals(timed.size(), table.rows.size());
        assertFalse(tables.merged());
        assertEquals(List.of("source 0 torch_trace.json " + json.get("baseTimeNanoseconds").longValue() + " 0", "slot 0 null null"), table.calls);
        assertEquals(List.of(trace.toString()), tables.unranked());
        int bytes = 0;
        for (int i = 0; i < timed.size(); i++) {
            JsonNode e = timed.get(i);
            long[] r = table.rows.get(i);
            String cat = e.path("cat").asText();
            assertEquals(e.path("ph").asText() + " " + (e.has("cat") ? cat : null) + " " + e.path("name").asText(), table.phases.get(i), "reading order");
            if (Set.of("gpu_memcpy", "gpu_memset").contains(cat)) {
                assertEquals(e.get("args").get("bytes").longValue(), r[0], e.toString());
                bytes++;
            } else {
                assertEquals(EventTable.NONE, r[0], e.toString());
            }
            if (Set.of("s", "f").contains(e.path("ph").asText())) {
                assertEquals(e.get("id").longValue(), r[1], e.toString());
            } else {
                assertEquals(EventTable.NONE, r[1], "no arrow: no flow id, whatever its id: " + e);
            }
            if (!cat.equals("gpu_memcpy")) {
                assertEquals(EventTable.NONE, r[2], "only a copy has two ends: " + e);
            }
        }
        assertEquals(8, bytes, "6 sets and 2 copies");
    }

    @Test
    void theH200MergeNamesItsSlotsRanksHostsAndPids() throws Exception {
        Recorded table = new Recorded();
        TraceTables tables = new TraceTables(table);
        tables.read(MERGED);
        assertTrue(tables.merged());
        assertEquals(List.of(), tables.unranked());
        assertEquals("source 0 h200-ranks.merged.json.gz 1796179185000000000 1000", table.calls.get(0));
        assertTrue(table.calls.containsAll(List.of("slot 0 0 vm", "slot 1 1 vm", "pid 0 1001 781", "pid 1 2001 782", "pid 0 1000 -1",
                "pid 1 2003 none", "pid 1 2005 none")), table.calls.toString());
        assertEquals(1 + 2 * (1 + 6), table.calls.size(), "one source, and each slot with its six pids");
    }

    @Test
    void whatATableCannotHoldIsRefusedInWords(@TempDir Path dir) throws Exception {
        Path single = TorchKeyAveragesTest.resource("torch_trace.json");
        TraceTables mergeSecond = new TraceTables(new Recorded());
        mergeSecond.read(single);
        assertEquals(MERGED + " is a merged trace: give it alone (its slots are the ranks), or merge every trace into one first",
                assertThrows(TraceFormatException.class, () -> mergeSecond.read(MERGED)).getMessage());
        TraceTables mergeFirst = new TraceTables(new Recorded());
        mergeFirst.read(MERGED);
        assertEquals(MERGED + " is a merged trace: give it alone (its slots are the ranks), or merge every trace into one first",
                assertThrows(TraceFormatException.class, () -> mergeFirst.read(MERGED)).getMessage(), "two merges");
        TraceTables given = new TraceTables(new Recorded());
        given.giveRank(0);
        assertEquals(MERGED + " is a merged trace, whose slots name their ranks: a given rank is for the trace of one process",
                assertThrows(TraceFormatException.class, () -> given.read(MERGED)).getMessage());
        Path rank1 = Files.writeString(dir.resolve("rank1.json"), "{\"distributedInfo\":{\"rank\":1,\"world_size\":2},\"traceEvents\":["
                + "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":5,\"tid\":5,\"ts\":1,\"dur\":2}]}");
        TraceTables other = new TraceTables(new Recorded());
        other.giveRank(2);
        assertEquals(rank1 + " names rank 1, not the rank given (2)",
                assertThrows(TraceFormatException.class, () -> other.read(rank1)).getMessage());
        Recorded agreeing = new Recorded();
        TraceTables same = new TraceTables(agreeing);
        same.giveRank(1);
        same.read(rank1);
        assertEquals("slot 0 1 null", agreeing.calls.get(1));
        Path unranked = Files.writeString(dir.resolve("plain.json"), "[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":5,\"tid\":5,\"dur\":2}]");
        Recorded givenTo = new Recorded();
        TraceTables ranked = new TraceTables(givenTo);
        ranked.giveRank(3);
        ranked.read(unranked);
        assertEquals("slot 0 3 null", givenTo.calls.get(1), "a trace naming no rank takes the one given");
        assertEquals(List.of(), ranked.unranked());
        assertEquals(1, ranked.untimedLeftOut(), "the op without a ts");
        assertEquals(0, ranked.rows());
    }

    @Test
    void anIdOfAnotherPhaseIsNoFlowId(@TempDir Path dir) throws Exception {
        Path trace = Files.writeString(dir.resolve("async.json"), "{\"traceEvents\":["
                + "{\"ph\":\"b\",\"cat\":\"user\",\"name\":\"load\",\"id\":7,\"pid\":5,\"tid\":5,\"ts\":1},"
                + "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":7,\"pid\":5,\"tid\":5,\"ts\":1},"
                + "{\"ph\":\"t\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":8,\"pid\":5,\"tid\":5,\"ts\":2}]}");
        Recorded table = new Recorded();
        new TraceTables(table).read(trace);
        assertEquals(List.of(EventTable.NONE, 7L, 8L), table.rows.stream().map(r -> r[1]).toList(),
                "an async event's id is not an arrow's; a start and a step are");
    }
}
