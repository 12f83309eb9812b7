package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.benchmarks.SyntheticJob;
import org.flagos.trace.testing.TableRows;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The synthetic N-rank job (benchmarks' {@link SyntheticJob}) through the user's route: {@code merge} finds
 * each host's known clock offset from the collectives alone, {@code tables} reads every rank, the
 * collectives analysis names the injected straggler as the last to arrive at every collective, late by
 * what its slower compute costs, and every rank's critical path runs through the straggler's compute.
 */
class SyntheticJobTest {
    @TempDir(cleanup = org.junit.jupiter.api.io.CleanupMode.ALWAYS)
    Path dir;

    @Test
    void mergeFindsTheHostClocksAndTheCollectivesNameTheStraggler() throws Exception {
        int straggler = 2;
        SyntheticJob.Spec spec = new SyntheticJob.Spec(4, 12, 8, straggler, 1.5, 1.0, 2);
        long events = SyntheticJob.write(spec, dir.resolve("job"));
        assertEquals(12 * (8 * 5 + 5 + 3), events);
        List<String> args = new ArrayList<>(List.of("merge"));
        for (int r = 0; r < spec.ranks(); r++) {
            args.add(dir.resolve("job/rank-" + r + ".json").toString());
        }
        Path merged = dir.resolve("merged.json");
        args.addAll(List.of("-o", merged.toString()));
        CliRunner cli = new CliRunner();
        assertEquals(0, cli.run(args.toArray(String[]::new)), cli.stderr());
        JsonNode block = TraceJson.MAPPER.readTree(merged.toFile()).get("flagtrace_merge");
        long largestBound = 0;
        assertEquals("collectives", block.get("clock").asText(), block.toString());
        for (JsonNode in : block.get("inputs")) {
            int rank = in.get("rank").asInt();
            long truth = -SyntheticJob.hostOffsetNs(spec, rank);
            long offset = in.get("offset_ns").asLong();
            long bound = in.get("bound_ns").asLong();
            largestBound = Math.max(largestBound, bound);
            assertTrue(Math.abs(offset - truth) <= bound && bound <= 2 * SyntheticJob.JITTER_NS,
                    "rank " + rank + ": offset " + offset + ", truth " + truth + ", bound " + bound);
        }
        Path table = dir.resolve("events.parquet");
        assertEquals(0, cli.run("tables", merged.toString(), "-o", table.toString()), cli.stderr());
        List<Map<String, Object>> collectives = TableRows.maps(TableRows.run(table, "collectives"));
        List<Map<String, Object>> path = TableRows.maps(TableRows.run(table, "critical_path_segments"));
        // The critical path of every rank runs through the straggler's compute: all of its GEMM kernels are on each
        // rank's path, led there by the collectives the rank waited in; no other rank's GEMM is on another's path.
        Map<Long, Long> stragglerGemms = new HashMap<>();
        for (Map<String, Object> r : path) {
            long rank = ((Number) r.get("rank")).longValue();
            long onRank = ((Number) r.get("on_rank")).longValue();
            Object name = r.get("name");
            if ("kernel".equals(r.get("type")) && name != null && name.toString().startsWith("sm90_xmma_gemm")) {
                assertTrue(onRank == straggler || onRank == rank, "rank " + rank + "'s path holds rank " + onRank + "'s GEMM");
                if (onRank == straggler) {
                    stragglerGemms.merge(rank, 1L, Long::sum);
                }
            }
        }
        for (long r = 0; r < spec.ranks(); r++) {
            assertEquals((long) spec.steps() * spec.kernels(), stragglerGemms.getOrDefault(r, 0L), "rank " + r + "'s path: " + stragglerGemms);
        }
        Map<Long, Long> lateOfStraggler = new HashMap<>();
        Map<Long, Long> skew = new HashMap<>();
        int rows = 0;
        for (Map<String, Object> r : collectives) {
            rows++;
            long rank = ((Number) r.get("rank")).longValue();
            long instance = ((Number) r.get("instance")).longValue();
            assertEquals(4L, ((Number) r.get("ranks")).longValue());
            assertEquals("all_reduce", r.get("kind"));
            assertEquals(4L * (4 << 20), ((Number) r.get("bytes")).longValue(), "4M floats");
            skew.put(instance, ((Number) r.get("start_skew_ns")).longValue());
            if (rank == straggler) {
                lateOfStraggler.put(instance, ((Number) r.get("late_ns")).longValue());
            }
        }
        assertEquals(4 * 12, rows);
        // Every collective: the straggler arrives last (its lateness is the whole start skew), and by about its
        // extra compute of 8 kernels x 25 us (the other ranks' host launches hide none of it), read on the merged clock
        // (each host's alignment within its bound).
        for (Map.Entry<Long, Long> e : lateOfStraggler.entrySet()) {
            assertEquals(skew.get(e.getKey()), e.getValue(), "instance " + e.getKey());
            assertTrue(e.getValue() >= 150_000 && e.getValue() <= 8 * 25_000 + SyntheticJob.JITTER_NS + 2 * largestBound,
                    "instance " + e.getKey() + " late " + e.getValue());
        }
        assertTrue(Files.size(table) > 0);
    }
}
