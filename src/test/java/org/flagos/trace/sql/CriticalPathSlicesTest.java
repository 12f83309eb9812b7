package org.flagos.trace.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.benchmarks.SyntheticJob;
import org.flagos.trace.cli.CliRunner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The critical path made a slice of ranks at a time on DuckDB ({@link CriticalPath#perRank}: cp_nodes, the steps over every
 * node and cp_segments, a slice of the paths' ranks) gives the tables one statement a step gives, row for row, on a
 * synthetic 5-rank job (benchmarks' {@link SyntheticJob}, through {@code merge} and {@code tables}) whose every rank's path
 * runs through the straggler's compute: with a slice a rank, and with slices of two or three ranks that end inside the job
 * (a rank's rows lost or made twice at a slice's edge would change a table).
 */
class CriticalPathSlicesTest {
    @TempDir
    Path dir;

    /** The two tables of the critical path (columns and rows, in the analyses' order), and how the path was made. */
    private record Made(CriticalPath.Rounds rounds, List<ResultTable> tables) {
    }

    private static Made made(Path events, long eventsPerSlice) throws Exception {
        try (DuckDbAnalyses d = DuckDbAnalyses.open(events)) {
            CriticalPath.Rounds rounds = d.criticalPath(true, eventsPerSlice);
            List<ResultTable> tables = new ArrayList<>();
            for (String name : CriticalPath.TABLES) {
                tables.add(d.run(name));
            }
            return new Made(rounds, tables);
        }
    }

    @Test
    void aSyntheticJobsPathsAreTheSameMadeInSlicesOfAnySize() throws Exception {
        int ranks = 5;
        SyntheticJob.Spec spec = new SyntheticJob.Spec(ranks, 6, 4, 3, 1.5, 1.0, 2);
        SyntheticJob.write(spec, dir.resolve("job"));
        List<String> args = new ArrayList<>(List.of("merge"));
        for (int r = 0; r < ranks; r++) {
            args.add(dir.resolve("job/rank-" + r + ".json").toString());
        }
        Path merged = dir.resolve("merged.json");
        args.addAll(List.of("-o", merged.toString()));
        CliRunner cli = new CliRunner();
        assertEquals(0, cli.run(args.toArray(String[]::new)), cli.stderr());
        Path events = dir.resolve("events.parquet");
        assertEquals(0, cli.run("tables", merged.toString(), "-o", events.toString()), cli.stderr());

        Made whole = made(events, CriticalPath.EVENTS_PER_SLICE);
        assertEquals(1, whole.rounds().eventSlices(), whole.rounds().toString());
        assertEquals(1, whole.rounds().nodeSlices(), whole.rounds().toString());
        assertEquals(1, whole.rounds().segmentSlices(), whole.rounds().toString());
        List<List<Object>> segments = whole.tables().get(1).rows();
        int onRank = whole.tables().get(1).columns().indexOf("on_rank");
        int rank = whole.tables().get(1).columns().indexOf("rank");
        assertTrue(segments.stream().anyMatch(r -> !r.get(onRank).equals(r.get(rank))), "a path runs through another rank's chains");
        assertEquals(ranks, whole.tables().get(0).rows().size());
        long perRank;
        try (DuckDbAnalyses d = DuckDbAnalyses.open(events)) {
            d.criticalPath();
            perRank = d.engine("").count("SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM cp_events GROUP BY rank) t");
        }
        // a rank a statement; two ranks a slice (the last slice one); about three (the second slice two)
        for (long size : new long[] {1, 2 * perRank - 1, 2 * perRank + perRank / 2}) {
            Made sliced = made(events, size);
            int slices = size == 1 ? ranks : size < 2 * perRank ? 3 : 2;
            // cp_events is sliced by the events table's rows (more a rank than the graph's): a rank a statement at size 1
            if (size == 1) {
                assertEquals(ranks, sliced.rounds().eventSlices(), sliced.rounds().toString());
            } else {
                assertTrue(sliced.rounds().eventSlices() > 1, size + " events a slice: " + sliced.rounds());
            }
            assertEquals(slices, sliced.rounds().nodeSlices(), size + " events a slice: " + sliced.rounds());
            assertEquals(slices, sliced.rounds().segmentSlices(), size + " events a slice: " + sliced.rounds());
            for (int t = 0; t < whole.tables().size(); t++) {
                assertEquals(whole.tables().get(t).columns(), sliced.tables().get(t).columns());
                assertEquals(whole.tables().get(t).rows(), sliced.tables().get(t).rows(), whole.tables().get(t).name() + ", " + size
                        + " events a slice");
            }
        }
    }
}
