package org.flagos.trace.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link Analyses}, the loader of the analyses' SQL (the shared fragments' placement is
 * {@link AnalyzeSqlPartsTest}'s): only the listed names are analyses; every one loads with no marker
 * left; a launch marker becomes exactly the list of launch calls and takes only a column; a fragment
 * marker takes only a resource's name, drops the fragment's comment lines, and a missing resource is
 * named; the summary is the header line's text; the step window's bounds (in DuckDB, on rows of two
 * ranks).
 */
class AnalysesTest {
    @Test
    void onlyTheListedNamesAreAnalyses() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Analyses.sql("step_ops"));
        assertEquals("no analysis named 'step_ops'; there are " + Analyses.NAMES, e.getMessage(), "a fragment is no analysis");
        assertThrows(IllegalArgumentException.class, () -> Analyses.sql("../rank_steps"));
    }

    @Test
    void everyAnalysisLoadsWithNoMarkerLeftAndStartsWithItsHeader() {
        for (String name : Analyses.NAMES) {
            String sql = Analyses.sql(name);
            assertFalse(sql.contains("flagtrace_"), name + " keeps a marker:\n" + sql);
            assertTrue(sql.startsWith("-- " + name + ": "), name);
            assertFalse(Analyses.summary(name).isEmpty(), name);
        }
        assertEquals("each rank's time in each training step (ProfilerStep#N), ns.", Analyses.summary("rank_steps"));
    }

    @Test
    void aLaunchMarkerBecomesTheLaunchCallsAndTakesOnlyAColumn() {
        String expanded = Analyses.expand("WHERE flagtrace_is_launch( l.name ) AND x");
        StringBuilder in = new StringBuilder();
        for (String call : Analyses.LAUNCH_CALLS) {
            in.append(in.length() == 0 ? "" : ", ").append('\'').append(call).append('\'');
        }
        assertEquals("WHERE (l.name IN (" + in + ")) AND x", expanded);
        assertTrue(expanded.startsWith("WHERE (l.name IN ('cudaLaunchKernel', 'cudaLaunchKernelExC', 'cuLaunchKernel', "), expanded);
        assertEquals("not a column: name; DROP TABLE events",
                assertThrows(IllegalStateException.class, () -> Analyses.expand("flagtrace_is_launch(name; DROP TABLE events)")).getMessage());
        assertEquals("not a column: a.b.c", assertThrows(IllegalStateException.class, () -> Analyses.expand("flagtrace_is_launch(a.b.c)")).getMessage());
        assertEquals("unclosed flagtrace_is_launch( in an analysis",
                assertThrows(IllegalStateException.class, () -> Analyses.expand("flagtrace_is_launch(name")).getMessage());
    }

    @Test
    void aFragmentMarkerTakesAResourcesQueryWithoutItsComments() {
        String step = Analyses.fragments("WITH s AS (flagtrace_fragment(step_ops)) SELECT 1");
        assertTrue(step.startsWith("WITH s AS (SELECT rank,\n         TRY_CAST(SUBSTRING(name, 14) AS BIGINT) AS step,\n"), step);
        assertTrue(step.endsWith("    AND dur_ns >= 0) SELECT 1"), step);
        assertFalse(step.contains("--"), step);
        assertEquals("not a fragment's name: ../step_ops",
                assertThrows(IllegalStateException.class, () -> Analyses.fragments("flagtrace_fragment(../step_ops)")).getMessage());
        assertEquals("no_such_part.sql is missing beside org.flagos.trace.sql.Analyses",
                assertThrows(IllegalStateException.class, () -> Analyses.fragments("flagtrace_fragment(no_such_part)")).getMessage());
    }

    @Test
    void theStepWindowRefusesBadArgumentsInOneLine() {
        assertEquals("steps 3-2 of events", assertThrows(IllegalArgumentException.class, () -> Analyses.stepWindow("events", 3, 2)).getMessage());
        assertEquals("steps -1-2 of events", assertThrows(IllegalArgumentException.class, () -> Analyses.stepWindow("events", -1, 2)).getMessage());
        assertEquals("steps 1-2 of events e; --", assertThrows(IllegalArgumentException.class, () -> Analyses.stepWindow("events e; --", 1, 2)).getMessage());
    }

    @Test
    void theStepWindowKeepsRowsStartingFromTheFirstStepsStartToBeforeTheLastStepsEnd() throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE events (rank INTEGER, ph VARCHAR, cat VARCHAR, name VARCHAR, ts_ns BIGINT, dur_ns BIGINT)");
            s.execute("INSERT INTO events VALUES "
                    + "(0, 'X', 'user_annotation', 'ProfilerStep#1', 100, 100), (0, 'X', 'user_annotation', 'ProfilerStep#2', 200, 100),"
                    + "(0, 'X', 'user_annotation', 'ProfilerStep#3', 300, 100),"
                    + "(0, 'X', 'kernel', 'before', 199, 5), (0, 'X', 'kernel', 'first', 200, 5), (0, 'X', 'kernel', 'long', 350, 500),"
                    + "(0, 'X', 'kernel', 'at_end', 400, 5),"
                    + "(1, 'X', 'cpu_op', 'ProfilerStep#9', 0, 1000), (1, 'X', 'kernel', 'other_steps', 10, 5)");
            List<String> kept = new ArrayList<>();
            try (ResultSet r = s.executeQuery(Analyses.stepWindow("events", 2, 3) + " ORDER BY e.ts_ns, e.name")) {
                while (r.next()) {
                    kept.add(r.getInt("rank") + " " + r.getString("name"));
                }
            }
            assertEquals(List.of("0 ProfilerStep#2", "0 first", "0 ProfilerStep#3", "0 long"), kept);
        }
    }
}
